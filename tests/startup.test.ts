import { describe, expect, test } from "bun:test";
import { mkdir, stat, writeFile } from "node:fs/promises";
import { type Socket, createServer } from "node:net";
import path from "node:path";
import { freshQueueDatabase } from "./support/postgres";
import { directoryForThisFile } from "./support/temporary-directory";

const MAIN = path.resolve(import.meta.dir, "../src/main.ts");
const scratch = directoryForThisFile("rhizome-startup-", { mode: 0o755 });

const exists = (file: string) => stat(file).then(
  () => true,
  () => false,
);

/** Runs `npm start`'s program with a bad setting and reports how it ended; a start that does not end in 30 s is killed. */
async function start(environment: Record<string, string>) {
  const child = Bun.spawn([process.execPath, MAIN], {
    env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "info", ...environment },
    stdout: "pipe",
    stderr: "pipe",
  });
  const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const code = await child.exited;
  clearTimeout(killer);
  const stderr = await new Response(child.stderr).text();
  return { code, errorLines: stderr.split("\n").filter((line) => line.trim()) };
}

function expectOneClearLine(result: Awaited<ReturnType<typeof start>>, ...words: string[]) {
  expect(result.code).not.toBe(0);
  expect(result.code).not.toBeNull(); // ended by itself, not by the 30 s kill
  expect(result.errorLines).toHaveLength(1);
  const [line] = result.errorLines;
  for (const word of words) expect(line).toContain(word);
  expect(line).not.toMatch(/^\s+at |\.ts:\d+/);
}

describe("a start-up failure ends the process with one clear line", () => {
  test("a bad setting", async () => {
    const result = await start({ DATA_DIR: path.join(scratch, "bad-setting"), PORT: "http" });
    expectOneClearLine(result, "PORT");
    expect(result.code).toBe(2);
  });

  test("the openai extractor without OPENAI_MODEL, before anything starts", async () => {
    const dataDir = path.join(scratch, "no-model");
    const result = await start({ DATA_DIR: dataDir, OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" });
    expectOneClearLine(result, "OPENAI_MODEL");
    expect(result.code).toBe(2);
    // Nothing started: the first step of a start creates DATA_DIR, and its Postgres would live inside.
    expect(await exists(dataDir)).toBe(false);
  });

  test("a DATA_DIR that cannot be written", async () => {
    const file = path.join(scratch, "a-file");
    await writeFile(file, "");
    expectOneClearLine(await start({ DATA_DIR: path.join(file, "data") }), "DATA_DIR", "not a writable directory");
  });

  test("an unreachable DATABASE_URL, its password not shown", async () => {
    const result = await start({ DATA_DIR: path.join(scratch, "refused"), DATABASE_URL: "postgres://app:hunter2secret@127.0.0.1:1/rhizome" });
    expectOneClearLine(result, "DATABASE_URL", "connection refused");
    expect(result.errorLines[0]).not.toContain("hunter2secret");
  });

  test("a DATABASE_URL whose server never answers", async () => {
    const silent: Socket[] = [];
    const server = createServer((socket) => void silent.push(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    try {
      const result = await start({ DATA_DIR: path.join(scratch, "silent"), DATABASE_URL: `postgres://app:pw@127.0.0.1:${port}/rhizome` });
      expectOneClearLine(result, "DATABASE_URL", "timeout");
    } finally {
      for (const socket of silent) socket.destroy();
      server.close();
    }
  });

  test("a port in use", async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const { port } = busy.address() as { port: number };
    try {
      const result = await start({ DATA_DIR: path.join(scratch, "busy"), DATABASE_URL: await freshQueueDatabase(), PORT: String(port) });
      expectOneClearLine(result, `127.0.0.1:${port}`, "already in use", "PORT");
    } finally {
      busy.close();
    }
  });

  test("an embedded Postgres that cannot start", async () => {
    // A cluster directory from a Postgres major version this one cannot read.
    const dataDir = path.join(scratch, "broken-cluster");
    await mkdir(path.join(dataDir, "pg"), { recursive: true });
    await writeFile(path.join(dataDir, "pg", "PG_VERSION"), "9\n");
    await writeFile(path.join(dataDir, "pg-password"), "secret\n", { mode: 0o600 });
    expectOneClearLine(await start({ DATA_DIR: dataDir }), "embedded Postgres");
  }, 60_000);
});

describe("the test suite's server helper", () => {
  test("rejects at once with the start-up failure, so a broken start fails a file instead of timing out each test", async () => {
    const { startTestServer } = await import("./support/server");
    const { StartupError } = await import("../src/startup-error");
    const failure = await startTestServer({ DATABASE_URL: "postgres://app:pw@127.0.0.1:1/rhizome" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StartupError);
    expect((failure as Error).message).toContain("DATABASE_URL");
  }, 15_000);
});

describe("what a process loads at start-up", () => {
  test("no LLM SDK until a build or a question needs one", async () => {
    // A process of its own: this one's module registry holds whatever other test files loaded.
    const script = `
      const sdk = () => Object.keys(require.cache).filter((file) => /node_modules\\/(openai|@anthropic-ai\\/sdk)\\//.test(file)).length;
      await import(${JSON.stringify(path.resolve(import.meta.dir, "../src/server.ts"))});
      const atStart = sdk();
      const { createBuildExtractor } = await import(${JSON.stringify(path.resolve(import.meta.dir, "../src/modules/graph/create-extractor.ts"))});
      await createBuildExtractor({ extractor: "anthropic", llmConcurrency: 1, anthropic: { apiKey: "key" } }, []);
      console.log(JSON.stringify({ atStart, afterBuild: sdk() }));`;
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    expect(await child.exited).toBe(0);
    const { atStart, afterBuild } = JSON.parse(await new Response(child.stdout).text()) as { atStart: number; afterBuild: number };
    expect(atStart).toBe(0);
    expect(afterBuild).toBeGreaterThan(0);
  }, 30_000);
});
