/**
 * How we tell a dead worker from a slow one. graphile-worker records `locked_by` (the worker pool's id) on the
 * jobs a pool runs, but keeps no heartbeat, so a crashed pool's jobs stay locked for 4 hours. Here every pool
 * holds a session-level advisory lock named after its id, on a connection of its own; Postgres drops that lock
 * as soon as the session ends (process killed, or its host gone once TCP keepalive notices). A `locked_by` whose
 * advisory lock nobody holds is therefore a dead worker (`findDeadWorkers` in graphile-internals.ts asks). All
 * workers on a database must start through `createQueue`, or their jobs look dead too.
 */
import pg from "pg";
import type { JobLog } from "./log";

/** The advisory lock key of a pool id, as SQL over an expression that yields the id. */
export const livenessLockKey = (poolIdSql: string) => `hashtextextended('rhizome-worker:' || ${poolIdSql}, 0)`;
const MAX_RETRY_MS = 10_000;

export interface WorkerLiveness {
  readonly held: boolean;
  whenHeld(): Promise<void>;
  /** Call only after the pool has finished or released its jobs. */
  release(): Promise<void>;
}

export function holdLiveness({
  connectionString,
  poolId,
  log,
}: {
  connectionString: string;
  poolId: string;
  log: JobLog;
}): WorkerLiveness {
  let client: pg.Client | null = null;
  let released = false;
  let retryMs = 250;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let waiters: Array<() => void> = [];

  const wakeWaiters = () => {
    for (const wake of waiters) wake();
    waiters = [];
  };

  const retryLater = () => {
    if (released) return;
    retryTimer = setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  };

  const lost = (session: pg.Client, error: Error | null) => {
    if (session !== client) return;
    client = null;
    if (released) return;
    log.warn(`worker ${poolId} lost its liveness connection${error ? ` (${error.message})` : ""}; reconnecting`);
    retryLater();
  };

  async function connect(): Promise<void> {
    if (released) return;
    const session = new pg.Client({ connectionString, application_name: "rhizome-jobs-liveness" });
    session.on("error", (error) => lost(session, error));
    session.on("end", () => lost(session, null));
    try {
      await session.connect();
      await session.query(`select pg_advisory_lock(${livenessLockKey("$1")})`, [poolId]);
    } catch (error) {
      session.end().catch(() => undefined);
      log.warn(`worker ${poolId} could not take its liveness lock: ${(error as Error).message}`);
      retryLater();
      return;
    }
    if (released) {
      await session.end().catch(() => undefined);
      return;
    }
    client = session;
    retryMs = 250;
    wakeWaiters();
  }

  void connect();
  return {
    get held() {
      return client !== null;
    },
    whenHeld() {
      return client !== null || released ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve));
    },
    async release() {
      released = true;
      clearTimeout(retryTimer);
      wakeWaiters();
      const session = client;
      client = null;
      await session?.end().catch(() => undefined); // ending the session drops the lock
    },
  };
}
