/**
 * One Postgres per test process. With DATABASE_URL set, that database is used as it is (point it at a disposable
 * one; tests stay apart through unique task names and job keys, never by truncating tables). Otherwise an embedded
 * Postgres starts in a temp directory on first use. A watchdog shell stops it and deletes the directory once this
 * process has gone, because `bun test` fires no `exit` event, and so that a crashed run cleans up too.
 */
import { spawn } from "node:child_process";
import { chmod, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "../../src/jobs/embedded-postgres";
import { type JobLog, silentLog } from "../../src/jobs/log";

export interface TestPostgres {
  connectionString: string;
}

let started: Promise<TestPostgres> | undefined;

export function getTestPostgres(): Promise<TestPostgres> {
  started ??= start();
  return started;
}

/** Warnings and errors only: enough to explain a failing test without Postgres's chatter. */
export const testLog: JobLog = { ...silentLog, warn: console.warn, error: console.error };

async function start(): Promise<TestPostgres> {
  const url = process.env.DATABASE_URL;
  if (url) return { connectionString: url };
  const dataDir = await mkdtemp(path.join(tmpdir(), "rhizome-test-pg-"));
  await chmod(dataDir, 0o755); // as root, so the cluster stays inside it (a private DATA_DIR moves it elsewhere)
  reapAfterExit(dataDir);
  const postgres = await startEmbeddedPostgres({ dataDir, log: testLog });
  return { connectionString: postgres.connectionString };
}

const REAPER = `
while kill -0 "$1" 2>/dev/null; do sleep 0.2; done
pidfile="$2/pg/postmaster.pid"
if [ -f "$pidfile" ]; then
  pid="$(head -n 1 "$pidfile")"
  kill -INT "$pid" 2>/dev/null
  tries=0
  while [ -f "$pidfile" ] && kill -0 "$pid" 2>/dev/null && [ "$tries" -lt 150 ]; do sleep 0.2; tries=$((tries + 1)); done
fi
rm -rf "$2"
`;

function reapAfterExit(dataDir: string): void {
  // Its own session, so a runner that kills the test's process group (e.g. `timeout`) does not kill it too.
  const reaper = spawn("sh", ["-c", REAPER, "rhizome-test-pg-reaper", String(process.pid), dataDir], {
    detached: true,
    stdio: "ignore",
  });
  reaper.unref();
}

/**
 * Runs `body` while database `name` refuses connections and has none left open, then lets them in again.
 * allow_connections, not a connection limit: the test user is a superuser, whom limits do not stop.
 */
export async function withDatabaseClosed(admin: pg.Client, name: string, body: () => Promise<void>): Promise<void> {
  await admin.query(`alter database ${name} allow_connections false`);
  try {
    // Without a timeout pg_terminate_backend only sends the signal, and a backend still alive would answer
    // `body`'s first query. A connection that was starting when the database closed shows up a moment later.
    for (let left = 1; left > 0; ) {
      await admin.query("select pg_terminate_backend(pid, 5000) from pg_stat_activity where datname = $1", [name]);
      left = (await admin.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = $1", [name])).rows[0]!.n;
    }
    await body();
  } finally {
    await admin.query(`alter database ${name} allow_connections true`);
  }
}

let databases = 0;

/** A new, empty database in the test run's Postgres; returns its URL. */
export async function freshQueueDatabase(): Promise<string> {
  const { connectionString } = await getTestPostgres();
  const name = `rhizome_test_${process.pid}_${++databases}`;
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(connectionString);
  url.pathname = `/${name}`;
  return url.toString();
}
