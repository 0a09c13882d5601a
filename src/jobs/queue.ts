/**
 * A typed layer over graphile-worker: one catalogue of tasks, `enqueue(name, payload)` checked against the task's
 * Zod schema, and a runner that parses every payload again before the handler sees it.
 *
 * What graphile-worker gives and we keep: at-least-once delivery; retries after exp(min(attempt, 10)) seconds;
 * jobs start through LISTEN/NOTIFY (polling every `pollIntervalMs` only finds retries and future `runAt`s).
 * What we add: crashed workers' jobs are freed within a sweep interval, not 4 hours (see worker-liveness.ts); tasks
 * with a `schedule` are queued by graphile-worker's cron in every running worker. Every statement against
 * graphile-worker's own tables lives in graphile-internals.ts, which pins the release it was written for.
 *
 * The app wires shutdown on SIGTERM/SIGINT: `await worker.stop(); await queue.close(); await postgres?.stop();`.
 */
import { EventEmitter } from "node:events";
import type { Logger, Task, TaskList, WorkerEvents, WorkerPool } from "graphile-worker";
import pg from "pg";
import { z } from "zod";
import { type AnyTask, assertMaxAttempts } from "./define-task";
import { type JobLog, prefixedLog } from "./log";
import {
  addJob,
  addJobs,
  assertSupportedGraphileWorker,
  findDeadWorkers,
  findJobByKey,
  type FreedJob,
  freeJobsOfWorkers,
  hasLockedJobs,
  makeAttemptTheLast,
  queueSchemaExists,
  SCHEMA,
} from "./graphile-internals";
import { holdLiveness, type WorkerLiveness } from "./worker-liveness";

// Enqueueing is plain SQL; graphile-worker itself loads only to migrate or run jobs,
// so an API-only process whose database is already migrated never carries it.
let graphileWorker: Promise<typeof import("graphile-worker")> | undefined;
const loadGraphileWorker = () => (graphileWorker ??= import("graphile-worker"));

type TaskNamed<Tasks extends readonly AnyTask[], Name> = Extract<Tasks[number], { name: Name }>;

export interface EnqueueOptions {
  /** One pending job per key, e.g. `import:<taskId>`. A job already running under the key is not replaced: a second one is queued. */
  jobKey?: string;
  /** `replace` (default) debounces: the new payload and runAt win. `preserve_run_at` throttles: the queued runAt stays. */
  jobKeyMode?: "replace" | "preserve_run_at";
  runAt?: Date;
  /** Overrides the task's maxAttempts for this job. */
  maxAttempts?: number;
  /** Jobs of one named queue run one at a time, across every worker (how a task caps its concurrency). */
  queueName?: string;
  /** Lower runs first when several are ready (default 0): background polling yields to what people wait for. */
  priority?: number;
}

export interface JobState {
  jobId: string;
  taskName: string;
  attempts: number;
  maxAttempts: number;
  lastError: string | null;
  runAt: Date;
  /** The worker pool running it now, if any. */
  lockedBy: string | null;
  /** Out of attempts: it stays in the table for inspection but will not run again. */
  permanentlyFailed: boolean;
}

export interface WorkerOptions {
  concurrency: number;
  /** How often to look for retries and future jobs; new jobs arrive by NOTIFY without waiting for this. */
  pollIntervalMs?: number;
  /** After stop(), how long running jobs get before their abort signal fires. */
  abortAfterMs?: number;
  /** After stop(), how long before jobs still running are failed (and so retried later) and the worker quits. */
  drainTimeoutMs?: number;
  /** How often this worker frees the jobs of dead workers (also once at start); 0 turns it off. */
  deadWorkerSweepMs?: number;
  /** Tasks whose schedule this worker does not keep (a test that must not race a timed run queues them itself). */
  unscheduled?: readonly string[];
}

export interface JobWorker {
  /** graphile-worker's pool id: what `locked_by` says on the jobs this worker runs. */
  readonly id: string;
  /** Takes no new jobs, waits for running ones (their abort signal fires after `abortAfterMs`), then releases its liveness lock. */
  stop(): Promise<void>;
}

export interface Queue<Tasks extends readonly AnyTask[]> {
  /** graphile-worker's migrations; safe to run on every start. */
  migrate(): Promise<void>;
  /** Migrates only when the queue's schema does not exist yet (API processes; workers run `migrate`). */
  migrateIfMissing(): Promise<void>;
  /** Null when graphile-worker added nothing: a worker locked the keyed job at that instant. Enqueue again. */
  enqueue<Name extends Tasks[number]["name"]>(
    name: Name,
    payload: z.input<TaskNamed<Tasks, Name>["payload"]>,
    options?: EnqueueOptions,
  ): Promise<{ jobId: string } | null>;
  /**
   * Many jobs of one task in one statement: one round trip and one commit (one WAL flush) for all, where `enqueue`
   * pays one each. Returns how many graphile-worker added (see `enqueue` on null).
   */
  enqueueMany<Name extends Tasks[number]["name"]>(
    name: Name,
    jobs: { payload: z.input<TaskNamed<Tasks, Name>["payload"]>; options?: EnqueueOptions }[],
  ): Promise<number>;
  /** Resolves when Postgres answers on the queue's pool (for health checks). */
  ping(): Promise<void>;
  /** `pg_notify(channel, payload)` for each payload, in one statement on the queue's database: how processes sharing it tell each other news. */
  notify(channel: string, payloads: readonly string[]): Promise<void>;
  /** True while a job with this key is waiting, retrying or running; false once done or permanently failed. */
  jobExists(jobKey: string): Promise<boolean>;
  findJob(jobKey: string): Promise<JobState | null>;
  startWorker(options: WorkerOptions): Promise<JobWorker>;
  /**
   * Frees jobs locked by worker pools that no longer hold their liveness lock (see worker-liveness.ts), so they run
   * again now instead of 4 hours later. The interrupted run counts as an attempt; a job that used its last attempt
   * that way gets its task's onPermanentFailure.
   */
  unlockJobsOfDeadWorkers(): Promise<{ workerIds: string[]; jobIds: string[] }>;
  /** Stops any running workers, then closes the pool. */
  close(): Promise<void>;
}

/** A queued payload that no longer matches its task's schema; retrying cannot fix it, so the job fails for good. */
export class InvalidPayloadError extends Error {
  constructor(taskName: string, error: z.ZodError) {
    super(`invalid payload for task ${taskName}:\n${z.prettifyError(error)}`);
    this.name = "InvalidPayloadError";
  }
}

const CONNECTIONS_CLOSE_TIMEOUT_MS = 5_000;
/** pg waits for a connection forever by default: a server that stops answering would hold requests open. */
const CONNECT_TIMEOUT_MS = 10_000;

export function createQueue<const Tasks extends readonly AnyTask[]>({
  connectionString,
  tasks,
  log,
  maxConnections = 10,
  connectTimeoutMs = CONNECT_TIMEOUT_MS,
}: {
  connectionString: string;
  tasks: Tasks;
  log: JobLog;
  /** Size of the one pool; a worker holds concurrency + 1 (its LISTEN connection), enqueue borrows briefly. */
  maxConnections?: number;
  /** A new connection that gets no answer within this fails (enqueue with it: the caller's 503). */
  connectTimeoutMs?: number;
}): Queue<Tasks> {
  assertSupportedGraphileWorker();
  const byName = new Map<string, AnyTask>();
  for (const task of tasks) {
    if (byName.has(task.name)) throw new Error(`task ${task.name} is defined twice`);
    byName.set(task.name, task);
  }
  const taskList: TaskList = Object.fromEntries(tasks.map((task) => [task.name, runnerFor(task, log)]));
  let logger: Promise<Logger> | undefined;
  const loadLogger = () => (logger ??= loadGraphileWorker().then(({ Logger }) => graphileLogger(Logger, log)));
  const workers = new Set<JobWorker>();
  const hooks = new Set<Promise<void>>();

  // One pool for enqueueing and the worker. Without these handlers a dropped connection (a DB restart) crashes the process.
  const pool = new pg.Pool({ connectionString, max: maxConnections, connectionTimeoutMillis: connectTimeoutMs, application_name: "rhizome-jobs" });
  pool.on("error", (error) => log.warn(`idle Postgres connection lost: ${error.message}`));
  // pool.end() resolves once it has asked its clients to end, not when they have: close() waits for each, so the
  // embedded Postgres stopped right after it finds no session to terminate.
  const connectionsClosed = new Set<Promise<void>>();
  pool.on("connect", (client) => {
    client.on("error", (error) => log.warn(`Postgres connection lost: ${error.message}`));
    const closed = new Promise<void>((resolve) => client.once("end", resolve));
    connectionsClosed.add(closed);
    void closed.then(() => connectionsClosed.delete(closed));
  });

  async function reportPermanentFailure(taskName: string, jobId: string, rawPayload: unknown, error: unknown) {
    const task = byName.get(taskName);
    if (!task?.onPermanentFailure || error instanceof InvalidPayloadError) return; // no typed payload to report
    const parsed = task.payload.safeParse(rawPayload);
    if (!parsed.success) return;
    try {
      await task.onPermanentFailure(parsed.data, error instanceof Error ? error : new Error(String(error)));
    } catch (hookError) {
      log.error(`onPermanentFailure of ${taskName} job ${jobId} failed: ${(hookError as Error).message}`);
    }
  }

  /**
   * graphile-worker writes a job's completion after the worker has moved on, so stop() can return before it lands.
   * Holding the liveness lock until then keeps a sweep from taking the job for a dead worker's.
   */
  async function untilUnlocked(poolId: string) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (!(await hasLockedJobs(pool, poolId).catch(() => false))) return;
      if (Date.now() > deadline) return log.warn(`worker ${poolId} stopped with jobs still locked; a sweep will free them`);
      await Bun.sleep(20);
    }
  }

  /** A job as add_job takes it, its payload checked against its task's schema (and a JSON round trip). */
  function jobSpec(name: string, payload: unknown, options: EnqueueOptions) {
    const task = byName.get(name);
    if (!task) throw new Error(`no task named ${name}`);
    task.payload.parse(payload);
    const json = JSON.stringify(payload) ?? "null";
    // What the worker will parse is the JSON, so check it survives the round trip (a Date, a bigint would not).
    const stored = task.payload.safeParse(JSON.parse(json));
    if (!stored.success) throw new Error(`payload for task ${name} does not survive JSON: ${z.prettifyError(stored.error)}`);
    const mode = options.jobKeyMode ?? "replace";
    if (mode !== "replace" && mode !== "preserve_run_at") throw new Error(`jobKeyMode ${String(mode)} is not allowed`);
    const maxAttempts = options.maxAttempts ?? task.maxAttempts;
    assertMaxAttempts(maxAttempts, name);
    return {
      task: name,
      json,
      runAt: options.runAt ?? null,
      maxAttempts,
      jobKey: options.jobKey ?? null,
      jobKeyMode: options.jobKey ? mode : null,
      queueName: options.queueName ?? task.serialQueue ?? null,
      priority: options.priority ?? null,
    };
  }

  const track = (hook: Promise<void>) => {
    hooks.add(hook);
    void hook.finally(() => hooks.delete(hook));
  };

  const queue: Queue<Tasks> = {
    async migrate() {
      const { runMigrations } = await loadGraphileWorker();
      await runMigrations({ pgPool: pool, schema: SCHEMA, logger: await loadLogger() });
    },

    async ping() {
      await pool.query("select 1");
    },

    async notify(channel, payloads) {
      await pool.query("select pg_notify($1, payload) from unnest($2::text[]) with ordinality as news(payload, n) order by n", [channel, payloads]);
    },

    async migrateIfMissing() {
      if (!(await queueSchemaExists(pool))) await queue.migrate();
    },

    async enqueueMany(name, jobs) {
      if (jobs.length === 0) return 0;
      return addJobs(pool, jobs.map(({ payload, options }) => jobSpec(name, payload, options ?? {})));
    },

    async enqueue(name, payload, options = {}) {
      const jobId = await addJob(pool, jobSpec(name, payload, options));
      return jobId === null ? null : { jobId };
    },

    async jobExists(jobKey) {
      const job = await queue.findJob(jobKey);
      return job !== null && !job.permanentlyFailed;
    },

    async findJob(jobKey) {
      const row = await findJobByKey(pool, jobKey);
      if (!row) return null;
      return {
        jobId: String(row.id),
        taskName: row.task_identifier,
        attempts: row.attempts,
        maxAttempts: row.max_attempts,
        lastError: row.last_error,
        runAt: row.run_at,
        lockedBy: row.locked_by,
        permanentlyFailed: row.locked_by === null && row.attempts >= row.max_attempts,
      };
    },

    async startWorker({
      concurrency,
      pollIntervalMs = 2_000,
      abortAfterMs = 5_000,
      drainTimeoutMs = 30_000,
      deadWorkerSweepMs = 60_000,
      unscheduled = [],
    }) {
      if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a positive integer`);
      const events = new EventEmitter() as WorkerEvents;
      let workerPool: WorkerPool | undefined;
      let liveness: WorkerLiveness | undefined;
      events.on("pool:create", ({ workerPool: created }) => {
        workerPool = created;
        liveness = holdLiveness({ connectionString, poolId: created.id, log });
      });
      // graphile-worker emits this when attempts reach max_attempts, before it records the failure.
      events.on("job:failed", ({ job, error }) =>
        track(reportPermanentFailure(job.task_identifier, String(job.id), job.payload, error)),
      );
      const listening = new Promise<void>((resolve) => events.once("pool:listen:success", () => resolve()));

      const { run, parseCronItems } = await loadGraphileWorker();
      // Keyed, so a run still waiting (every worker busy) is replaced by the next tick's rather than joined by it.
      const cronItems = parseCronItems(
        [...byName.values()].flatMap(({ name, schedule, maxAttempts }) =>
          schedule === undefined || unscheduled.includes(name) ? [] : [{ task: name, match: schedule, identifier: name, options: { maxAttempts, jobKey: `cron:${name}` } }],
        ),
      );
      const runner = await run(
        {
          pgPool: pool,
          schema: SCHEMA,
          taskList,
          concurrency,
          pollInterval: pollIntervalMs,
          gracefulShutdownAbortTimeout: abortAfterMs,
          noHandleSignals: true, // the app decides when to stop, and calls stop()
          logger: await loadLogger(),
          events,
          // No job is taken before this pool holds its liveness lock, or a sweep could take the pool for dead.
          forbiddenFlags: () => (liveness?.held ? null : (liveness?.whenHeld() ?? Promise.resolve()).then(() => null)),
        },
        undefined,
        cronItems,
      );
      const poolId = workerPool?.id ?? "unknown";
      runner.promise.catch((error: unknown) => log.error(`worker ${poolId} stopped on an error: ${String(error)}`));
      let slowTimer: ReturnType<typeof setTimeout> | undefined;
      const slow = new Promise<"slow">((resolve) => (slowTimer = setTimeout(() => resolve("slow"), 30_000)));
      const ready = Promise.all([listening, liveness?.whenHeld()]);
      if ((await Promise.race([ready, slow])) === "slow") log.warn(`worker ${poolId} is not listening yet; it will poll`);
      clearTimeout(slowTimer);

      const sweep = () =>
        queue.unlockJobsOfDeadWorkers().catch((error: Error) => log.warn(`dead-worker sweep failed: ${error.message}`));
      void sweep();
      const sweepTimer = deadWorkerSweepMs > 0 ? setInterval(sweep, deadWorkerSweepMs) : undefined;

      let stopping: Promise<void> | undefined;
      const worker: JobWorker = {
        id: poolId,
        stop() {
          stopping ??= (async () => {
            clearInterval(sweepTimer);
            const forceTimer = setTimeout(() => {
              log.warn(`jobs still running ${drainTimeoutMs} ms after stop(); failing them so they retry later`);
              // Not runner.kill(): it does nothing once a graceful shutdown has begun.
              void Promise.resolve(workerPool?.forcefulShutdown(`not drained within ${drainTimeoutMs} ms`)).catch(
                () => undefined,
              );
            }, drainTimeoutMs);
            await runner.stop().catch((error: Error) => log.warn(`worker ${poolId} stop: ${error.message}`));
            clearTimeout(forceTimer);
            await untilUnlocked(poolId);
            await Promise.allSettled(hooks);
            await liveness?.release();
            workers.delete(worker);
            log.info(`worker ${poolId} stopped`);
          })();
          return stopping;
        },
      };
      workers.add(worker);
      log.info(`worker ${poolId} started (concurrency ${concurrency})`);
      return worker;
    },

    async unlockJobsOfDeadWorkers() {
      const client = await pool.connect();
      let workerIds: string[] = [];
      let jobs: FreedJob[] = [];
      try {
        await client.query("begin");
        workerIds = await findDeadWorkers(client);
        if (workerIds.length > 0) jobs = await freeJobsOfWorkers(client, workerIds);
        await client.query("commit");
        client.release();
      } catch (error) {
        await client.query("rollback").catch(() => undefined);
        client.release(error as Error);
        throw error;
      }
      for (const job of jobs) {
        if (job.attempts < job.max_attempts) continue;
        const error = new Error(`its worker died during the last attempt (${job.attempts} of ${job.max_attempts})`);
        track(reportPermanentFailure(job.task_identifier, String(job.id), job.payload, error));
      }
      const jobIds = jobs.map((job) => String(job.id));
      if (workerIds.length > 0) log.warn(`freed ${jobIds.length} job(s) of dead worker(s) ${workerIds.join(", ")}`);
      return { workerIds, jobIds };
    },

    async close() {
      await Promise.all([...workers].map((worker) => worker.stop()));
      await Promise.allSettled(hooks);
      await pool.end();
      await Promise.race([Promise.all(connectionsClosed), Bun.sleep(CONNECTIONS_CLOSE_TIMEOUT_MS)]);
    },
  };
  return queue;
}

/** Wraps a task for graphile-worker: parse the payload, then hand the handler only what it needs. */
function runnerFor(task: AnyTask, log: JobLog): Task {
  return async (rawPayload, helpers) => {
    const { job } = helpers;
    const parsed = task.payload.safeParse(rawPayload);
    if (!parsed.success) {
      // Make this attempt the last, in the row and in the job graphile-worker holds, so it fails for good now.
      await makeAttemptTheLast(helpers.query, job.id);
      job.max_attempts = job.attempts;
      const error = new InvalidPayloadError(task.name, parsed.error);
      log.error(`job ${job.id} failed permanently: ${error.message}`);
      throw error;
    }
    await task.handler(parsed.data, {
      jobId: String(job.id),
      attempts: job.attempts,
      maxAttempts: job.max_attempts,
      signal: helpers.abortSignal,
      log: prefixedLog(log, `[${task.name} job ${job.id}]`),
    });
  };
}

/** graphile-worker's info lines (one per completed job) go to debug; warnings and errors stay. */
function graphileLogger(LoggerClass: typeof Logger, log: JobLog): Logger {
  return new LoggerClass(() => (level, message) => {
    const line = `graphile-worker: ${message}`;
    switch (level as string) {
      case "error":
        return log.error(line);
      case "warning":
        return log.warn(line);
      default:
        return log.debug(line);
    }
  });
}
