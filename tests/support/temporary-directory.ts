import { afterAll } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * A new directory under the system's temp folder, removed once this file's tests are done. Call it
 * at the top of a test file (`const dir = directoryForThisFile("rhizome-x-")`), where Bun registers
 * the removal for the whole file; inside a hook Bun runs it too early.
 */
export function directoryForThisFile(prefix = "rhizome-test-"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}
