/**
 * How we tell a dead worker from a slow one. graphile-worker records `locked_by` (the worker pool's id) on the
 * jobs a pool runs, but keeps no heartbeat, so a crashed pool's jobs stay locked for 4 hours. Here every pool
 * holds a session-level advisory lock named after its id, on a connection of its own; Postgres drops that lock
 * as soon as the session ends (process killed, or its host gone once TCP keepalive notices). A `locked_by` whose
 * advisory lock nobody holds is therefore a dead worker. All workers on a database must start through
 * `createQueue`, or their jobs look dead too.
 */
import pg from "pg";
import type { JobLog } from "./log";

const key = (poolIdSql: string) => `hashtextextended('rhizome-worker:' || ${poolIdSql}, 0)`;
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
      await session.query(`select pg_advisory_lock(${key("$1")})`, [poolId]);
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

/** Ids of worker pools that hold locks on jobs or job queues but no liveness lock. */
export async function findDeadWorkers(client: pg.ClientBase, schema: string): Promise<string[]> {
  const { rows } = await client.query<{ locked_by: string }>(`
    select locked_by from (
      select locked_by from ${schema}._private_jobs where locked_by is not null
      union
      select locked_by from ${schema}._private_job_queues where locked_by is not null
    ) as locks
    where not exists (
      select 1 from pg_locks
      where locktype = 'advisory' and granted and objsubid = 1 -- a bigint key: high half in classid, low in objid
        and database = (select oid from pg_database where datname = current_database())
        and classid::bigint = (${key("locked_by")} >> 32) & 4294967295
        and objid::bigint = ${key("locked_by")} & 4294967295
    )`);
  return rows.map((row) => row.locked_by);
}
