// The fixtures' temp directories outlive no test process: a watchdog deletes them once it has gone,
// even when it never ran their afterAll (killed, or every test of the file filtered out by -t).
import { expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { readLine } from "./read-line";
import { until } from "./until";

const MODULE = path.join(import.meta.dir, "temporary-directory.ts");

test("a temporary directory is there while its process lives, and gone soon after it is killed", async () => {
  // Prints the directory it made, then waits to be killed: nothing of its own removes it.
  const child = Bun.spawn([process.execPath, "-e", `const { temporaryDirectory } = await import(${JSON.stringify(MODULE)}); console.log(temporaryDirectory("rhizome-reaped-")); setInterval(() => {}, 1 << 30);`], {
    stdout: "pipe",
    stderr: "inherit",
  });
  try {
    const dir = await readLine(child.stdout);
    expect(fs.statSync(dir).isDirectory()).toBe(true);
    child.kill("SIGKILL");
    await child.exited;
    await until(() => !fs.existsSync(dir) && !fs.existsSync(path.dirname(dir)), { timeoutMs: 10_000, what: `${dir} and its process folder removed` });
  } finally {
    child.kill("SIGKILL");
  }
});
