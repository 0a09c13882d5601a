import { afterAll } from "bun:test";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

let processRoot: string | undefined;

/**
 * A new directory for this test process, removed by whoever made it. All of them live in one folder
 * per process that a watchdog deletes once the process has gone: `bun test` fires no exit event, and
 * a crashed run, or a file whose tests a `-t` filter skipped, never runs its afterAll.
 */
export function temporaryDirectory(prefix = "rhizome-test-"): string {
  if (processRoot === undefined) {
    processRoot = fs.mkdtempSync(path.join(os.tmpdir(), `rhizome-tests-${process.pid}-`));
    // A DATA_DIR's embedded Postgres runs, under root, as a user of its own that must pass through.
    fs.chmodSync(processRoot, 0o711);
    // In a session of its own, so a runner that kills the test's process group does not kill it too.
    spawn("sh", ["-c", REAPER, "rhizome-tests-reaper", String(process.pid), processRoot], { detached: true, stdio: "ignore" }).unref();
  }
  return fs.mkdtempSync(path.join(processRoot, prefix));
}

const REAPER = `while kill -0 "$1" 2>/dev/null; do sleep 1; done; rm -rf "$2"`;

/**
 * A temporaryDirectory removed once this file's tests are done (after `beforeRemoval`, for what still
 * runs in it). Call it at the top of a test file (`const dir = directoryForThisFile("rhizome-x-")`),
 * where Bun registers the removal for the whole file; inside a hook Bun runs it too early.
 */
export function directoryForThisFile(prefix = "rhizome-test-", options: { mode?: number; beforeRemoval?: () => Promise<void> } = {}): string {
  const dir = temporaryDirectory(prefix);
  // mkdtemp makes it private (0700); as root, a DATA_DIR's embedded Postgres runs as its own user and must get in.
  if (options.mode !== undefined) fs.chmodSync(dir, options.mode);
  afterAll(async () => {
    await options.beforeRemoval?.();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}
