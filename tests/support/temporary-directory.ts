import { afterAll } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * A new directory under the system's temp folder, removed once this file's tests are done (after
 * `beforeRemoval`, for what still runs in it). Call it at the top of a test file
 * (`const dir = directoryForThisFile("rhizome-x-")`), where Bun registers the removal for the whole
 * file; inside a hook Bun runs it too early.
 */
export function directoryForThisFile(prefix = "rhizome-test-", options: { mode?: number; beforeRemoval?: () => Promise<void> } = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  // mkdtemp makes it private (0700); as root, a DATA_DIR's embedded Postgres runs as its own user and must get in.
  if (options.mode !== undefined) fs.chmodSync(dir, options.mode);
  afterAll(async () => {
    await options.beforeRemoval?.();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}
