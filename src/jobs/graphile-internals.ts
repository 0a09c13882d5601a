/**
 * Every statement this service runs against graphile-worker's own schema, in one place: its documented SQL API
 * (`add_job`, the `jobs` view, `force_unlock_workers`) and the private tables (`_private_jobs`, `_private_tasks`,
 * `_private_job_queues`) that no public API reaches. Private tables change between releases without notice, so
 * the queue refuses to start on a graphile-worker other than the one this SQL was written and tested against.
 */
import { createRequire } from "node:module";
import type pg from "pg";
import { livenessLockKey } from "./worker-liveness";

export const SCHEMA = "graphile_worker"; // pinned: graphile-worker would otherwise honour GRAPHILE_WORKER_SCHEMA

/** The releases whose schema this module was written for. */
const SUPPORTED = /^0\.17\.\d+$/;
const SUPPORTED_TEXT = "0.17.x";

export function installedGraphileWorkerVersion(): string {
  return (createRequire(import.meta.url)("graphile-worker/package.json") as { version: string }).version;
}

/** Throws a one-line error unless graphile-worker is a release whose private tables this module knows. */
export function assertSupportedGraphileWorker(version = installedGraphileWorkerVersion()): void {
  if (SUPPORTED.test(version)) return;
  throw new Error(
    `graphile-worker ${version} is installed but src/jobs/graphile-internals.ts was written for ${SUPPORTED_TEXT}; ` +
      `install ${SUPPORTED_TEXT} or check that module's SQL against the new release first`,
  );
}

type Queryable = Pick<pg.ClientBase, "query">;

export async function queueSchemaExists(db: Queryable): Promise<boolean> {
  const { rows } = await db.query("select to_regclass($1) as migrations", [`${SCHEMA}.migrations`]);
  return rows[0]?.migrations !== null;
}

/** graphile-worker's `add_job`; null when it added nothing (a worker had locked the keyed job at that instant). */
export async function addJob(
  db: Queryable,
  job: { task: string; json: string; runAt: Date | null; maxAttempts: number; jobKey: string | null; jobKeyMode: string | null; queueName?: string | null },
): Promise<string | null> {
  const { rows } = await db.query<{ id: string | null }>(
    `select id from ${SCHEMA}.add_job(identifier => $1::text, payload => $2::json, run_at => $3::timestamptz,
       max_attempts => $4::int, job_key => $5::text, job_key_mode => $6::text, queue_name => $7::text)`,
    [job.task, job.json, job.runAt?.toISOString() ?? null, job.maxAttempts, job.jobKey, job.jobKeyMode, job.queueName ?? null],
  );
  const id = rows[0]?.id;
  return id == null ? null : String(id);
}

/**
 * `add_job` for each job, in order, in one statement: one round trip and one commit, all or none
 * (a transaction of one `add_job` each cost a round trip per job plus BEGIN and COMMIT). How many
 * it added (see addJob on null).
 */
export async function addJobs(
  db: Queryable,
  jobs: { task: string; json: string; runAt: Date | null; maxAttempts: number; jobKey: string | null; jobKeyMode: string | null; queueName?: string | null }[],
): Promise<number> {
  const { rows } = await db.query<{ id: string | null }>(
    `select added.id from unnest($1::text[], $2::text[], $3::timestamptz[], $4::int[], $5::text[], $6::text[], $7::text[]) with ordinality
       as job(task, payload, run_at, max_attempts, job_key, job_key_mode, queue_name, n)
     cross join lateral ${SCHEMA}.add_job(identifier => job.task, payload => job.payload::json, run_at => job.run_at,
       max_attempts => job.max_attempts, job_key => job.job_key, job_key_mode => job.job_key_mode, queue_name => job.queue_name) as added
     order by job.n`,
    [
      jobs.map((job) => job.task),
      jobs.map((job) => job.json),
      jobs.map((job) => job.runAt?.toISOString() ?? null),
      jobs.map((job) => job.maxAttempts),
      jobs.map((job) => job.jobKey),
      jobs.map((job) => job.jobKeyMode),
      jobs.map((job) => job.queueName ?? null),
    ],
  );
  return rows.filter((row) => row.id != null).length;
}

export interface JobRow {
  id: string;
  task_identifier: string;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  run_at: Date;
  locked_by: string | null;
}

export async function findJobByKey(db: Queryable, jobKey: string): Promise<JobRow | null> {
  const { rows } = await db.query<JobRow>(
    `select id, task_identifier, attempts, max_attempts, last_error, run_at, locked_by from ${SCHEMA}.jobs where key = $1`,
    [jobKey],
  );
  return rows[0] ?? null;
}

export async function hasLockedJobs(db: Queryable, poolId: string): Promise<boolean> {
  const { rows } = await db.query(`select 1 from ${SCHEMA}._private_jobs where locked_by = $1 limit 1`, [poolId]);
  return rows.length > 0;
}

/** Makes the running attempt the job's last, so its failure is permanent (graphile-worker has no API for this). */
export async function makeAttemptTheLast(
  query: (text: string, values: unknown[]) => Promise<unknown>,
  jobId: string,
): Promise<void> {
  await query(`update ${SCHEMA}._private_jobs set max_attempts = attempts where id = $1`, [jobId]);
}

/** Ids of worker pools that hold locks on jobs or job queues but no liveness lock (see worker-liveness.ts). */
export async function findDeadWorkers(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ locked_by: string }>(`
    select locked_by from (
      select locked_by from ${SCHEMA}._private_jobs where locked_by is not null
      union
      select locked_by from ${SCHEMA}._private_job_queues where locked_by is not null
    ) as locks
    where not exists (
      select 1 from pg_locks
      where locktype = 'advisory' and granted and objsubid = 1 -- a bigint key: high half in classid, low in objid
        and database = (select oid from pg_database where datname = current_database())
        and classid::bigint = (${livenessLockKey("locked_by")} >> 32) & 4294967295
        and objid::bigint = ${livenessLockKey("locked_by")} & 4294967295
    )`);
  return rows.map((row) => row.locked_by);
}

export interface FreedJob {
  id: string;
  task_identifier: string;
  attempts: number;
  max_attempts: number;
  payload: unknown;
}

/**
 * Unlocks the jobs and queues of the given dead pools, noting why on each job, and wakes idle workers. Run it inside
 * the caller's transaction, after `findDeadWorkers` on the same client.
 */
export async function freeJobsOfWorkers(client: Queryable, workerIds: string[]): Promise<FreedJob[]> {
  const { rows: jobs } = await client.query<FreedJob>(
    `with unlocked as (
       update ${SCHEMA}._private_jobs set last_error = 'its worker ' || locked_by || ' died during this attempt'
       where locked_by = any($1::text[])
       returning id, task_id, attempts, max_attempts, payload
     )
     select unlocked.id, tasks.identifier as task_identifier, unlocked.attempts, unlocked.max_attempts, unlocked.payload
     from unlocked join ${SCHEMA}._private_tasks as tasks on tasks.id = unlocked.task_id`,
    [workerIds],
  );
  await client.query(`select ${SCHEMA}.force_unlock_workers($1::text[])`, [workerIds]);
  // Wakes idle workers now rather than at their next poll.
  if (jobs.length > 0) await client.query(`select pg_notify('jobs:insert', $1)`, [JSON.stringify({ count: jobs.length })]);
  return jobs;
}
