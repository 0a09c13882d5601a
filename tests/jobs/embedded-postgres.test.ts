import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "../../src/jobs/embedded-postgres";
import { testLog } from "../support/postgres";

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "rhizome-embedded-pg-test-"));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function query<T extends pg.QueryResultRow>(connectionString: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString });
  client.on("error", () => undefined);
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

const postmasterFile = () => path.join(dataDir, "pg", "postmaster.pid");
const postmasterPid = async () => Number.parseInt((await readFile(postmasterFile(), "utf8")).split("\n")[0] ?? "", 10);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z");
  } catch {
    return false;
  }
}

describe("embedded Postgres", () => {
  test("the first start creates the cluster and the rhizome database; a restart reuses data and password", async () => {
    const coldStart = performance.now();
    const first = await startEmbeddedPostgres({ dataDir, log: testLog });
    const coldMs = performance.now() - coldStart;
    await query(first.connectionString, "create table marker (id int); insert into marker values (42)");
    const [where] = await query<{ db: string; addr: string; user: string }>(
      first.connectionString,
      "select current_database() as db, host(inet_server_addr()) as addr, current_user as user",
    );
    expect(where).toEqual({ db: "rhizome", addr: "127.0.0.1", user: "postgres" });
    await first.stop();

    const warmStart = performance.now();
    const second = await startEmbeddedPostgres({ dataDir, log: testLog });
    const warmMs = performance.now() - warmStart;
    expect(await query(second.connectionString, "select id from marker")).toEqual([{ id: 42 }]);
    const password = (url: string) => new URL(url).password;
    expect(password(second.connectionString)).toBe(password(first.connectionString));
    expect(password(first.connectionString).length).toBeGreaterThanOrEqual(40);
    expect((await stat(path.join(dataDir, "pg-password"))).mode & 0o777).toBe(0o600);
    if (process.getuid?.() === 0) {
      // As root, the cluster belongs to the postgres system user embedded-postgres runs it as.
      const postgresUid = Number((await Bun.$`id -u postgres`.text()).trim());
      expect((await stat(path.join(dataDir, "pg"))).uid).toBe(postgresUid);
    }
    await second.stop();
    await second.stop();
    console.log(`embedded Postgres: cold start (initdb + start) ${coldMs.toFixed(0)} ms, warm start ${warmMs.toFixed(0)} ms`);
  }, 60_000);

  test("a postmaster.pid naming an unrelated live process of the same user does not block the start", async () => {
    const running = await startEmbeddedPostgres({ dataDir, log: testLog });
    const lockFile = await readFile(postmasterFile(), "utf8");
    await running.stop();
    // Postgres itself refuses to start when the pid is alive and signalable by it, i.e. run by the same user.
    const asPostgresUser =
      process.getuid?.() === 0
        ? { uid: Number(await Bun.$`id -u postgres`.text()), gid: Number(await Bun.$`id -g postgres`.text()) }
        : {};
    const unrelated = spawn("sleep", ["30"], { ...asPostgresUser, stdio: "ignore" });
    if (unrelated.pid === undefined) throw new Error("could not start sleep");
    try {
      await writeFile(postmasterFile(), lockFile.replace(/^\d+/, String(unrelated.pid)));
      const restarted = await startEmbeddedPostgres({ dataDir, log: testLog });
      expect(await query(restarted.connectionString, "select id from marker")).toEqual([{ id: 42 }]);
      await restarted.stop();
    } finally {
      unrelated.kill();
    }
  }, 30_000);

  test("a postmaster killed with SIGKILL is recovered at the next start, and stop() does not hang", async () => {
    const crashed = await startEmbeddedPostgres({ dataDir, log: testLog });
    const pid = await postmasterPid();
    process.kill(pid, "SIGKILL");
    while (alive(pid)) await Bun.sleep(20);
    await crashed.stop();
    const restarted = await startEmbeddedPostgres({ dataDir, log: testLog });
    expect(await query(restarted.connectionString, "select id from marker")).toEqual([{ id: 42 }]);
    await restarted.stop();
  }, 30_000);

  test("a Postgres orphaned by a killed app is shut down and the cluster starts again", async () => {
    const app = Bun.spawn([process.execPath, path.join(import.meta.dir, "fixtures", "start-postgres.ts"), dataDir], {
      stdout: "pipe",
      stderr: "inherit",
    });
    const firstLine = await readLine(app.stdout);
    const { connectionString } = JSON.parse(firstLine) as { connectionString: string };
    await query(connectionString, "insert into marker values (43)");
    const orphan = await postmasterPid();
    app.kill("SIGKILL");
    await app.exited;
    expect(alive(orphan)).toBe(true);

    const restarted = await startEmbeddedPostgres({ dataDir, log: testLog });
    expect(alive(orphan)).toBe(false);
    expect(await query(restarted.connectionString, "select id from marker order by id")).toEqual([{ id: 42 }, { id: 43 }]);
    await restarted.stop();
  }, 30_000);
});

async function readLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before a line: ${text}`);
    text += decoder.decode(value);
  }
  reader.releaseLock();
  return text.slice(0, text.indexOf("\n"));
}
