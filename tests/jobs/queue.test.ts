import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import pg from "pg";
import { z } from "zod";
import { defineTask, type TaskDefinition, type TaskHelpers } from "../../src/jobs/define-task";
import { assertSupportedGraphileWorker, installedGraphileWorkerVersion } from "../../src/jobs/graphile-internals";
import { createQueue, type Queue } from "../../src/jobs/queue";
import { getTestPostgres, testLog } from "../support/postgres";
import { readLine } from "../support/read-line";
import { freshQueueDatabase } from "../support/postgres";
import { uniqueName } from "../support/unique-name";
import { until } from "../support/until";

let connectionString: string;
let admin: pg.Pool; // inspects graphile_worker's tables and plays the DBA
beforeAll(async () => {
  ({ connectionString } = await getTestPostgres());
  admin = new pg.Pool({ connectionString, max: 2 });
  admin.on("error", () => undefined);
  await createQueue({ connectionString, tasks: [], log: testLog }).migrate();
}, 60_000);
afterAll(async () => {
  await admin.end();
});

const notePayload = z.object({ noteId: z.number().int().positive(), tags: z.array(z.string()).default([]) });

async function jobsOfTask(taskName: string) {
  const { rows } = await admin.query<{ id: string; payload: unknown; attempts: number; key: string | null }>(
    `select jobs.id, jobs.payload, jobs.attempts, jobs.key from graphile_worker._private_jobs as jobs
     join graphile_worker._private_tasks as tasks on tasks.id = jobs.task_id where tasks.identifier = $1`,
    [taskName],
  );
  return rows;
}

type TypedTasks = readonly [
  TaskDefinition<"typed.note", typeof notePayload>,
  TaskDefinition<"typed.url", z.ZodObject<{ url: z.ZodURL }>>,
];

/**
 * A compile-time check, not a test: tsc (part of `npm test`) fails when an @ts-expect-error line stops being an
 * error, i.e. when enqueue stops rejecting a wrong task name, payload or option. Never called.
 */
export function enqueueIsTypedByTaskName(queue: Queue<TypedTasks>): void {
  void queue.enqueue("typed.note", { noteId: 1 });
  void queue.enqueue("typed.url", { url: "https://example.com" });
  // @ts-expect-error typed.note takes a noteId, not a url
  void queue.enqueue("typed.note", { url: "https://example.com" });
  // @ts-expect-error there is no such task
  void queue.enqueue("typed.missing", {});
  // @ts-expect-error unsafe_dedupe is not offered
  void queue.enqueue("typed.note", { noteId: 1 }, { jobKey: "k", jobKeyMode: "unsafe_dedupe" });
}

describe("job queue", () => {
  test("migrate is idempotent", async () => {
    const queue = createQueue({ connectionString, tasks: [], log: testLog });
    const version = async () =>
      (await admin.query<{ id: number }>("select max(id) as id from graphile_worker.migrations")).rows[0]?.id;
    const before = await version();
    await queue.migrate();
    await queue.migrate();
    expect(await version()).toBe(before);
    expect(before).toBeGreaterThan(0);
    await queue.close();
  });

  // How fast is measured by scripts/bench/tasks.ts; here only that NOTIFY, not polling, brings the job.
  test("a queued job starts through LISTEN/NOTIFY, not polling, and its handler gets the parsed payload", async () => {
    const seen: Array<{ payload: z.output<typeof notePayload>; helpers: TaskHelpers }> = [];
    const task = defineTask({
      name: uniqueName("test.note"),
      payload: notePayload,
      maxAttempts: 3,
      async handler(payload, helpers) {
        seen.push({ payload, helpers });
      },
    });
    const queue = createQueue({ connectionString, tasks: [task], log: testLog });
    // The worker polls once as it starts and then not for an hour: only a NOTIFY can bring these jobs.
    const worker = await queue.startWorker({ concurrency: 1, pollIntervalMs: 3_600_000 });
    for (let noteId = 1; noteId <= 5; noteId++) {
      const job = await queue.enqueue(task.name, { noteId });
      const run = await until(() => seen.find((entry) => entry.payload.noteId === noteId));
      expect(run.payload).toEqual({ noteId, tags: [] });
      expect(run.helpers).toMatchObject({ jobId: job?.jobId, attempts: 1, maxAttempts: 3 });
      expect(run.helpers.signal.aborted).toBe(false);
    }
    await worker.stop();
    await queue.close();
  }, 30_000);

  test("jobs of a task with a serial queue run one at a time, even with free slots", async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    const task = defineTask({
      name: uniqueName("test.serial"),
      payload: notePayload,
      maxAttempts: 1,
      serialQueue: uniqueName("serial"),
      async handler(payload) {
        running++;
        most = Math.max(most, running);
        await Bun.sleep(150);
        running--;
        done.push(payload.noteId);
      },
    });
    const queue = createQueue({ connectionString, tasks: [task], log: testLog });
    await queue.enqueueMany(task.name, [1, 2, 3].map((noteId) => ({ payload: { noteId } })));
    await queue.enqueue(task.name, { noteId: 4 });
    const worker = await queue.startWorker({ concurrency: 4, pollIntervalMs: 100 });
    await until(() => done.length === 4, { timeoutMs: 10_000, what: "four serial jobs" });
    expect(most).toBe(1);
    expect(done.sort()).toEqual([1, 2, 3, 4]);
    await worker.stop();
    await queue.close();
  }, 30_000);

  test("notify sends each payload, in order, as its own notification, in one statement", async () => {
    const queue = createQueue({ connectionString, tasks: [], log: testLog });
    const channel = uniqueName("news");
    const listener = new pg.Client({ connectionString });
    await listener.connect();
    const heard: string[] = [];
    listener.on("notification", (message) => message.channel === channel && heard.push(message.payload ?? ""));
    try {
      await listener.query(`listen ${channel}`);
      const payloads = Array.from({ length: 300 }, (_, n) => `{"n":${n}}`);
      await queue.notify(channel, payloads);
      await until(() => heard.length === payloads.length, { what: "every notification" });
      expect(heard).toEqual(payloads);
    } finally {
      await listener.end();
      await queue.close();
    }
  });

  test("an invalid payload is refused at enqueue and nothing is queued", async () => {
    const task = defineTask({ name: uniqueName("test.strict"), payload: notePayload, maxAttempts: 1, handler: async () => {} });
    const dated = defineTask({
      name: uniqueName("test.dated"),
      payload: z.object({ at: z.date() }),
      maxAttempts: 1,
      handler: async () => {},
    });
    const queue = createQueue({ connectionString, tasks: [task, dated], log: testLog });
    await expect(queue.enqueue(task.name, { noteId: "seven" } as never)).rejects.toBeInstanceOf(z.ZodError);
    await expect(queue.enqueue(task.name, { noteId: -1 })).rejects.toBeInstanceOf(z.ZodError);
    await expect(queue.enqueue(dated.name, { at: new Date() })).rejects.toThrow(/does not survive JSON/);
    await expect(queue.enqueue("no.such.task" as never, {} as never)).rejects.toThrow(/no task named/);
    await expect(
      queue.enqueue(task.name, { noteId: 1 }, { jobKey: "k", jobKeyMode: "unsafe_dedupe" as never }),
    ).rejects.toThrow(/not allowed/);
    expect(await jobsOfTask(task.name)).toEqual([]);
    expect(await jobsOfTask(dated.name)).toEqual([]);
    await queue.close();
  });

  test("a job key added twice leaves one job, carrying the newer payload", async () => {
    const task = defineTask({ name: uniqueName("test.keyed"), payload: notePayload, maxAttempts: 2, handler: async () => {} });
    const queue = createQueue({ connectionString, tasks: [task], log: testLog });
    const jobKey = `import:${crypto.randomUUID()}`;
    const first = await queue.enqueue(task.name, { noteId: 1 }, { jobKey });
    const second = await queue.enqueue(task.name, { noteId: 2, tags: ["b"] }, { jobKey, jobKeyMode: "preserve_run_at" });
    expect(second?.jobId).toBe(first?.jobId as string);
    const jobs = await jobsOfTask(task.name);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ key: jobKey, payload: { noteId: 2, tags: ["b"] } });
    await queue.close();
  });

  test("jobExists is true while a keyed job waits, false once it is done, and false for an unknown key", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const task = defineTask({ name: uniqueName("test.exists"), payload: notePayload, maxAttempts: 1, handler: () => gate });
    const queue = createQueue({ connectionString, tasks: [task], log: testLog });
    const jobKey = `exists:${crypto.randomUUID()}`;
    expect(await queue.jobExists(jobKey)).toBe(false);
    await queue.enqueue(task.name, { noteId: 1 }, { jobKey });
    expect(await queue.jobExists(jobKey)).toBe(true);
    const worker = await queue.startWorker({ concurrency: 1 });
    await until(async () => (await queue.findJob(jobKey))?.lockedBy);
    expect(await queue.jobExists(jobKey)).toBe(true); // running its only attempt still counts
    release();
    await until(async () => !(await queue.jobExists(jobKey)));
    expect(await queue.findJob(jobKey)).toBeNull();
    await worker.stop();
    await queue.close();
  }, 15_000);

  test("a throwing handler is retried with attempts counting up; onPermanentFailure fires once, after the last", async () => {
    const attempts: number[] = [];
    let firstAttemptAt = 0;
    const permanentFailures: Array<{ payload: unknown; error: Error }> = [];
    const task = defineTask({
      name: uniqueName("test.flaky"),
      payload: notePayload,
      maxAttempts: 2,
      async handler(_payload, helpers) {
        if (helpers.attempts === 1) firstAttemptAt = Date.now();
        attempts.push(helpers.attempts);
        throw new Error(`boom on attempt ${helpers.attempts}`);
      },
      async onPermanentFailure(payload, error) {
        permanentFailures.push({ payload, error });
      },
    });
    const queue = createQueue({ connectionString, tasks: [task], log: { ...testLog, error: () => {} } });
    const worker = await queue.startWorker({ concurrency: 1, pollIntervalMs: 100 });
    const jobKey = `flaky:${crypto.randomUUID()}`;
    await queue.enqueue(task.name, { noteId: 9 }, { jobKey });

    await until(() => attempts.length === 1);
    const afterFirst = await until(async () => {
      const job = await queue.findJob(jobKey);
      return job?.lockedBy === null && job.lastError ? job : null;
    });
    expect(afterFirst).toMatchObject({ attempts: 1, maxAttempts: 2, lastError: "boom on attempt 1", permanentlyFailed: false });
    // graphile-worker's backoff: the second attempt waits exp(1) = 2.7 s after the first failed, which came after it
    // started; measured from the start, so a slow machine can only widen the gap.
    expect(afterFirst.runAt.getTime() - firstAttemptAt).toBeGreaterThan(2_500);
    expect(permanentFailures).toEqual([]);

    await until(() => permanentFailures.length === 1, { timeoutMs: 10_000 });
    expect(attempts).toEqual([1, 2]);
    expect(permanentFailures[0]?.payload).toEqual({ noteId: 9, tags: [] });
    expect(permanentFailures[0]?.error.message).toBe("boom on attempt 2");
    const final = await until(async () => {
      const job = await queue.findJob(jobKey);
      return job?.permanentlyFailed ? job : null;
    });
    expect(final).toMatchObject({ attempts: 2, lastError: "boom on attempt 2" });
    expect(await queue.jobExists(jobKey)).toBe(false);
    // Out of attempts, it is never picked again: once the worker has stopped, no run can still be under way.
    await worker.stop();
    expect(attempts).toEqual([1, 2]);
    expect(permanentFailures).toHaveLength(1);
    await queue.close();
  }, 20_000);

  test("with maxAttempts 1 the first failure is final", async () => {
    const permanentFailures: string[] = [];
    const task = defineTask({
      name: uniqueName("test.once"),
      payload: notePayload,
      maxAttempts: 5,
      handler: async () => {
        throw new Error("no luck");
      },
      onPermanentFailure: async (payload) => void permanentFailures.push(`note ${payload.noteId}`),
    });
    const queue = createQueue({ connectionString, tasks: [task], log: { ...testLog, error: () => {} } });
    const worker = await queue.startWorker({ concurrency: 1 });
    const jobKey = `once:${crypto.randomUUID()}`;
    await queue.enqueue(task.name, { noteId: 3 }, { jobKey, maxAttempts: 1 }); // the per-job override wins
    await until(() => permanentFailures.length === 1);
    const job = await until(async () => {
      const found = await queue.findJob(jobKey);
      return found?.permanentlyFailed ? found : null;
    });
    expect(job).toMatchObject({ attempts: 1, maxAttempts: 1, lastError: "no luck" });
    expect(permanentFailures).toEqual(["note 3"]);
    await worker.stop();
    await queue.close();
  }, 15_000);

  test("a queued payload that no longer fits its schema fails for good without reaching the handler", async () => {
    let handled = 0;
    const permanentFailures: unknown[] = [];
    const task = defineTask({
      name: uniqueName("test.schema-drift"),
      payload: notePayload,
      maxAttempts: 5,
      handler: async () => void handled++,
      onPermanentFailure: async (payload) => void permanentFailures.push(payload),
    });
    const errors: string[] = [];
    const queue = createQueue({ connectionString, tasks: [task], log: { ...testLog, error: (line) => errors.push(line) } });
    const jobKey = `drift:${crypto.randomUUID()}`;
    // As if queued by an older release whose schema differed: straight into graphile-worker, past enqueue().
    await admin.query("select graphile_worker.add_job($1, $2::json, job_key => $3, max_attempts => 5)", [
      task.name,
      JSON.stringify({ noteId: "seven" }),
      jobKey,
    ]);
    const worker = await queue.startWorker({ concurrency: 1 });
    const job = await until(async () => {
      const found = await queue.findJob(jobKey);
      return found?.permanentlyFailed ? found : null;
    });
    expect(job).toMatchObject({ attempts: 1, maxAttempts: 1 });
    expect(job.lastError).toContain(`invalid payload for task ${task.name}`);
    expect(handled).toBe(0);
    expect(permanentFailures).toEqual([]);
    expect(errors.some((line) => line.includes("failed permanently"))).toBe(true);
    await worker.stop();
    await queue.close();
  }, 15_000);

  test("worker.stop() fires the running job's abort signal and waits for the job to finish", async () => {
    let started = false;
    let finished = false;
    let signal: AbortSignal | undefined;
    const task = defineTask({
      name: uniqueName("test.long"),
      payload: notePayload,
      maxAttempts: 3,
      async handler(_payload, helpers) {
        signal = helpers.signal;
        started = true;
        await new Promise((resolve) => helpers.signal.addEventListener("abort", resolve, { once: true }));
        await Bun.sleep(200); // cleanup after the abort, which stop() must wait for
        finished = true;
      },
    });
    const queue = createQueue({ connectionString, tasks: [task], log: testLog });
    const worker = await queue.startWorker({ concurrency: 1, abortAfterMs: 300 });
    const jobKey = `long:${crypto.randomUUID()}`;
    await queue.enqueue(task.name, { noteId: 1 }, { jobKey });
    await until(() => started);
    const stopAt = performance.now();
    await worker.stop();
    const stopMs = performance.now() - stopAt;
    expect(signal?.aborted).toBe(true);
    expect(finished).toBe(true);
    expect(stopMs).toBeGreaterThanOrEqual(450);
    expect(await queue.findJob(jobKey)).toBeNull(); // it returned normally, so it completed
    await queue.close();
  }, 15_000);

  test("a job that ignores its abort signal is failed, to retry later, when stop() runs out of time", async () => {
    let started = false;
    const task = defineTask({
      name: uniqueName("test.stubborn"),
      payload: notePayload,
      maxAttempts: 3,
      handler: async () => {
        started = true;
        await new Promise(() => undefined);
      },
    });
    const queue = createQueue({ connectionString, tasks: [task], log: { ...testLog, warn: () => {}, error: () => {} } });
    const worker = await queue.startWorker({ concurrency: 1, abortAfterMs: 100, drainTimeoutMs: 400 });
    const jobKey = `stubborn:${crypto.randomUUID()}`;
    await queue.enqueue(task.name, { noteId: 1 }, { jobKey });
    await until(() => started);
    await worker.stop();
    expect(await queue.findJob(jobKey)).toMatchObject({
      lockedBy: null,
      attempts: 1,
      lastError: "not drained within 400 ms",
      permanentlyFailed: false,
    });
    await queue.close();
  }, 15_000);

  test("a job locked by a killed worker is freed by unlockJobsOfDeadWorkers and then runs exactly once here", async () => {
    const name = uniqueName("test.orphaned");
    const runs: TaskHelpers[] = [];
    const task = defineTask({
      name,
      payload: z.object({ noteId: z.number() }),
      maxAttempts: 3,
      async handler(_payload, helpers) {
        runs.push(helpers);
      },
    });
    const queue = createQueue({ connectionString, tasks: [task], log: { ...testLog, warn: () => {} } });
    const jobKey = `orphaned:${crypto.randomUUID()}`;
    const job = await queue.enqueue(task.name, { noteId: 5 }, { jobKey });

    const child = Bun.spawn([process.execPath, path.join(import.meta.dir, "fixtures", "hold-job.ts")], {
      env: { ...process.env, CONNECTION_STRING: connectionString, TASK_NAME: name },
      stdout: "pipe",
      stderr: "inherit",
    });
    try {
      expect(await readLine(child.stdout)).toBe(`started ${job?.jobId}`);
      const locked = await queue.findJob(jobKey);
      expect(locked?.lockedBy).toBeString();
      expect(await queue.unlockJobsOfDeadWorkers()).toEqual({ workerIds: [], jobIds: [] }); // alive: left alone
    } finally {
      child.kill("SIGKILL");
      await child.exited;
    }

    // Postgres ends the dead worker's liveness session (and so its lock) once it sees the socket close.
    const freed = await until(async () => {
      const result = await queue.unlockJobsOfDeadWorkers();
      return result.jobIds.length > 0 ? result : null;
    }, { timeoutMs: 5_000, what: "the dead worker's job to be freed" });
    expect(freed.jobIds).toEqual([job?.jobId as string]);
    expect(await queue.findJob(jobKey)).toMatchObject({ lockedBy: null, attempts: 1, permanentlyFailed: false });

    const worker = await queue.startWorker({ concurrency: 1 });
    await until(() => runs.length === 1);
    await until(async () => !(await queue.jobExists(jobKey)));
    // The job is done and gone: once the worker has stopped, no second run can still be under way.
    await worker.stop();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ jobId: job?.jobId, attempts: 2 });
    await queue.close();
  }, 30_000);

  test("the pool and worker survive their Postgres connections being terminated", async () => {
    const ran: number[] = [];
    const task = defineTask({
      name: uniqueName("test.survivor"),
      payload: notePayload,
      maxAttempts: 3,
      handler: async ({ noteId }) => void ran.push(noteId),
    });
    const warnings: string[] = [];
    // A database of its own, so terminating its backends touches no other test or run on the same Postgres.
    const ownDatabase = await freshQueueDatabase();
    const queue = createQueue({
      connectionString: ownDatabase,
      tasks: [task],
      log: { ...testLog, warn: (line) => warnings.push(line), error: (line) => warnings.push(line) },
    });
    await queue.migrate();
    const worker = await queue.startWorker({ concurrency: 2 });
    await queue.enqueue(task.name, { noteId: 1 });
    await until(() => ran.includes(1));

    const { rows } = await admin.query<{ terminated: boolean }>(
      `select pg_terminate_backend(pid) as terminated from pg_stat_activity
       where datname = $1 and application_name like 'rhizome-jobs%' and pid <> pg_backend_pid()`,
      [new URL(ownDatabase).pathname.slice(1)],
    );
    expect(rows.length).toBeGreaterThanOrEqual(2); // at least the LISTEN connection and the liveness one
    await until(() => warnings.some((line) => line.includes("connection")));

    await until(async () => (await queue.enqueue(task.name, { noteId: 2 }).catch(() => null)) !== null);
    await until(() => ran.includes(2), { timeoutMs: 10_000 });
    await worker.stop();
    await queue.close();
  }, 30_000);
});

// pg waits for a connection forever by default: only the 300 ms connect timeout can end this within the test's 15 s.
test("enqueue against a Postgres that accepts connections but never answers fails within the connect timeout", async () => {
  // A listener that takes the TCP connection and says nothing: a hung server or a dropped route.
  const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const name = uniqueName("test.silent");
  const queue = createQueue({
    connectionString: `postgres://rhizome@127.0.0.1:${silent.port}/rhizome`,
    tasks: [defineTask({ name, payload: notePayload, maxAttempts: 1, handler: async () => {} })],
    log: testLog,
    connectTimeoutMs: 300,
  });
  try {
    await expect(queue.enqueue(name, { noteId: 1 })).rejects.toThrow(/timeout/i);
  } finally {
    await queue.close();
    silent.stop(true);
  }
}, 15_000);

describe("scheduled tasks", () => {
  test("a task with a schedule is registered with graphile-worker's cron when a worker starts", async () => {
    const task = defineTask({ name: uniqueName("test.hourly"), payload: z.object({}), maxAttempts: 1, schedule: "17 * * * *", handler: async () => {} });
    const queue = createQueue({ connectionString, tasks: [task], log: testLog });
    const worker = await queue.startWorker({ concurrency: 1 });
    try {
      const known = async () =>
        (await admin.query("select 1 from graphile_worker._private_known_crontabs where identifier = $1", [task.name])).rows.length > 0;
      await until(known);
    } finally {
      await worker.stop();
      await queue.close();
    }
  });

  test("a task without one is not", async () => {
    const task = defineTask({ name: uniqueName("test.unscheduled"), payload: z.object({}), maxAttempts: 1, handler: async () => {} });
    const queue = createQueue({ connectionString, tasks: [task], log: testLog });
    const worker = await queue.startWorker({ concurrency: 1 });
    await worker.stop();
    await queue.close();
    const { rows } = await admin.query("select 1 from graphile_worker._private_known_crontabs where identifier = $1", [task.name]);
    expect(rows).toEqual([]);
  });

  test("a worker leaves the tasks it is told to unscheduled, and keeps the others' schedules", async () => {
    const kept = defineTask({ name: uniqueName("test.kept"), payload: z.object({}), maxAttempts: 1, schedule: "17 * * * *", handler: async () => {} });
    const left = defineTask({ name: uniqueName("test.left"), payload: z.object({}), maxAttempts: 1, schedule: "* * * * *", handler: async () => {} });
    const queue = createQueue({ connectionString, tasks: [kept, left], log: testLog });
    const worker = await queue.startWorker({ concurrency: 1, unscheduled: [left.name] });
    const known = async (name: string) => (await admin.query("select 1 from graphile_worker._private_known_crontabs where identifier = $1", [name])).rows.length > 0;
    try {
      await until(() => known(kept.name), { what: "the kept schedule to be registered" });
      expect(await known(left.name)).toBe(false);
    } finally {
      await worker.stop();
      await queue.close();
    }
  });

  test("a schedule needs a payload schema that accepts {}, since cron queues an empty payload", () => {
    expect(() =>
      defineTask({ name: uniqueName("test.needy"), payload: notePayload, maxAttempts: 1, schedule: "0 * * * *", handler: async () => {} }),
    ).toThrow("must accept {}");
  });

  test("an invalid schedule stops the worker from starting", async () => {
    const task = defineTask({ name: uniqueName("test.bad-cron"), payload: z.object({}), maxAttempts: 1, schedule: "every hour", handler: async () => {} });
    const queue = createQueue({ connectionString, tasks: [task], log: testLog });
    await expect(queue.startWorker({ concurrency: 1 })).rejects.toThrow();
    await queue.close();
  });
});

describe("graphile-worker's version", () => {
  test("the installed one is the release the private-table SQL was written for", () => {
    expect(installedGraphileWorkerVersion()).toMatch(/^0\.17\./);
    expect(() => assertSupportedGraphileWorker()).not.toThrow();
  });

  test.each([["0.18.0"], ["0.16.6"], ["1.0.0"]])("%s is refused with one line naming both versions", (version) => {
    let message = "";
    try {
      assertSupportedGraphileWorker(version);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(`graphile-worker ${version} is installed`);
    expect(message).toContain("0.17.x");
    expect(message).not.toContain("\n");
  });
});
