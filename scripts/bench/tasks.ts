// `bun run bench:tasks`: import tasks end to end. One service process (ROLE=all: API + worker, with
// its embedded Postgres) takes a burst of 1,000 pasted-content tasks from concurrent submitters,
// then a trickle of 100 (one every 20 ms, so the queue never backs up). Prints tasks/s completed,
// create→completed latency percentiles, failures, where the time goes, and PASS/FAIL per target.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config";
import { percentile } from "./load";
import { benchScratch, type ServerProcess } from "./server-process";
import { createTask, findTasks, getTask, isTerminal, listTasks, registerAndLogin, type Session, type TaskView } from "./tasks-client";
import { KIND_DESCRIPTIONS, taskSpecs, type ContentKind, type TaskSpec } from "./tasks-content";
import { cpuBetween, cpuSnapshot, describeTree, type CpuUse } from "./tasks-cpu";

const BURST_TASKS = Number(process.env.BENCH_TASKS ?? 1_000);
const SUBMITTERS = Number(process.env.BENCH_SUBMITTERS ?? 32);
const TRICKLE_TASKS = Number(process.env.BENCH_TRICKLE_TASKS ?? 100);
const TRICKLE_INTERVAL_MS = 20;
const WARMUP_TASKS = 20;
/** Client-observed latency: every 50th burst task is polled every 100 ms, every trickle task every 10 ms. */
const BURST_SAMPLE = { every: 50, pollMs: 100 };
const TRICKLE_SAMPLE = { every: 1, pollMs: 10 };
const SETTLE_MS = 2_000;
const COMPLETION_TIMEOUT_MS = 180_000;
const TARGET = { p50Ms: 100, tasksPerSecond: 100 };
/** CPU used outside the service, its Postgres and this client beyond which a run is flagged (kernel I/O threads alone stay below). */
const OUTSIDE_LOAD_CORES = 0.25;

interface Submission {
  spec: TaskSpec;
  /** Client clock (epoch ms, sub-millisecond): POST sent, POST answered. */
  sentAt: number;
  returnedAt: number;
  status: number;
  id?: number;
  error?: string;
  sampled: boolean;
  /** Client clock: the first GET /api/tasks/{id} answer that showed the task finished. */
  seenFinishedAt?: number;
}

interface RunResult {
  name: string;
  description: string;
  submissions: Submission[];
  tasks: Map<number, TaskView>;
  cpu: CpuUse;
  /** Client clock: first POST sent → the completion watcher saw every task finished. */
  clientSeconds: number;
}

const now = () => performance.timeOrigin + performance.now();
const started = performance.now();
const scratch = benchScratch("rhizome-bench-tasks-");
const { workDir, cleanUp } = scratch;
const dataDir = path.join(workDir, "service");
let service: ServerProcess | undefined;

async function main() {
  progress(`work directory ${workDir}`);
  // An outside DATABASE_URL or LIBSQL_URL would point the service elsewhere: empty means unset.
  const environment = { ROLE: "all", DATA_DIR: dataDir, DATABASE_URL: "", LIBSQL_URL: "" };
  const config = loadConfig({ ...process.env, ...environment });
  service = await scratch.start("service", "service-server.ts", environment);
  progress(`service pid ${service.pid} on ${service.url}; worker concurrency ${config.worker.concurrency}; its tree: ${describeTree(service.pid)}`);
  const session = await registerAndLogin(service.url, "bench_tasks");

  // The first import job loads the page parsers; warm them (and the JIT) outside the measurements.
  const warmup = await runTasks(session, "warm-up", taskSpecs(WARMUP_TASKS, 0, 1), { trickleMs: 20 }, TRICKLE_SAMPLE);
  progress(`warm-up: ${warmup.tasks.size} tasks done`);
  await Bun.sleep(SETTLE_MS);

  const burst = await runTasks(session, "burst", taskSpecs(BURST_TASKS, WARMUP_TASKS, 2), { submitters: SUBMITTERS }, BURST_SAMPLE);
  report(burst);
  await Bun.sleep(SETTLE_MS);
  const trickle = await runTasks(
    session,
    "trickle",
    taskSpecs(TRICKLE_TASKS, WARMUP_TASKS + BURST_TASKS, 3),
    { trickleMs: TRICKLE_INTERVAL_MS },
    TRICKLE_SAMPLE,
  );
  report(trickle);

  const pid = service.pid;
  const stopStarted = performance.now();
  await cleanUp();
  progress(`service (pid ${pid}) and its Postgres stopped in ${elapsed(stopStarted)}; work directory removed`);

  const failures = summary(burst, trickle, config.worker.concurrency);
  if (failures > 0) process.exitCode = 1;
}

/** Submits the tasks (concurrently, or one every `trickleMs`), then waits until every one has finished. */
async function runTasks(
  session: Session,
  name: string,
  specs: TaskSpec[],
  mode: { submitters: number } | { trickleMs: number },
  sample: { every: number; pollMs: number },
): Promise<RunResult> {
  const description =
    "submitters" in mode
      ? `${specs.length.toLocaleString("en-US")} tasks from ${mode.submitters} concurrent submitters`
      : `${specs.length} tasks, one every ${mode.trickleMs} ms`;
  progress(`${name}: ${description}`);
  const submissions: Submission[] = [];
  const pollers: Promise<void>[] = [];
  const deadline = Date.now() + COMPLETION_TIMEOUT_MS;
  const cpuBefore = cpuSnapshot(service!.pid);

  const submit = async (spec: TaskSpec, position: number) => {
    const sentAt = now();
    const created = await createTask(session, spec.body);
    const submission: Submission = {
      spec,
      sentAt,
      returnedAt: now(),
      status: created.status,
      id: created.task?.id,
      error: created.error,
      sampled: created.task !== undefined && position % sample.every === 0,
    };
    submissions.push(submission);
    if (submission.sampled) pollers.push(pollUntilFinished(session, submission, sample.pollMs, deadline));
  };

  const firstSent = now();
  if ("submitters" in mode) {
    let next = 0;
    const submitter = async () => {
      while (next < specs.length) {
        const position = next++;
        await submit(specs[position]!, position);
      }
    };
    await Promise.all(Array.from({ length: mode.submitters }, submitter));
  } else {
    const pending: Promise<void>[] = [];
    for (const [position, spec] of specs.entries()) {
      // Against the schedule, not after the previous POST: a slow answer does not delay the next task.
      const wait = firstSent + position * mode.trickleMs - now();
      if (wait > 0) await Bun.sleep(wait);
      pending.push(submit(spec, position));
    }
    await Promise.all(pending);
  }
  const lastReturned = Math.max(...submissions.map((submission) => submission.returnedAt));
  progress(`${name}: ${submissions.length} submitted in ${((lastReturned - firstSent) / 1000).toFixed(2)} s; waiting for completion`);

  const ids = submissions.flatMap((submission) => (submission.id === undefined ? [] : [submission.id]));
  const tasks = await waitForAll(session, ids, deadline);
  const clientSeconds = (now() - firstSent) / 1000;
  const cpu = cpuBetween(cpuBefore, cpuSnapshot(service!.pid));
  await Promise.all(pollers);
  return { name, description, submissions: submissions.sort((a, b) => a.spec.index - b.spec.index), tasks, cpu, clientSeconds };
}

/** The client's view: GET /api/tasks/{id} every `pollMs` until it shows the task finished. */
async function pollUntilFinished(session: Session, submission: Submission, pollMs: number, deadline: number) {
  while (Date.now() < deadline) {
    await Bun.sleep(pollMs);
    const task = await getTask(session, submission.id!);
    if (task && isTerminal(task)) {
      submission.seenFinishedAt = now();
      return;
    }
  }
}

/**
 * Jobs run roughly oldest first, so the newest page (GET /api/tasks?size=100, one request every
 * 100 ms) finishes last; once it has, all pages are read to confirm. The figures come from the
 * tasks' own timestamps, so this watcher's pace does not affect them.
 */
async function waitForAll(session: Session, ids: number[], deadline: number): Promise<Map<number, TaskView>> {
  const wanted = new Set(ids);
  for (;;) {
    await Bun.sleep(100);
    const newest = (await listTasks(session, 1)).items.filter((task) => wanted.has(task.id));
    if (newest.every(isTerminal) || Date.now() > deadline) {
      const tasks = await findTasks(session, ids);
      const unfinished = [...tasks.values()].filter((task) => !isTerminal(task)).length + (ids.length - tasks.size);
      if (unfinished === 0) return tasks;
      if (Date.now() > deadline) {
        progress(`${unfinished} task(s) still unfinished after ${COMPLETION_TIMEOUT_MS / 1000} s; counting them as failures`);
        return tasks;
      }
      await Bun.sleep(400);
    }
  }
}

interface Figures {
  submitted: number;
  rejected: number;
  completed: number;
  failed: number;
  unfinished: number;
  submittedPerSecond: number;
  postP50: number;
  postP99: number;
  /** Server clock: first created_at → last finished_at. */
  endToEndSeconds: number;
  tasksPerSecond: number;
  latency: { p50: number; p90: number; p99: number; max: number };
  /** created_at → started_at: the POST's own writes, NOTIFY, job pick-up, the job's first SELECT. */
  waitP50: number;
  waitP99: number;
  /** started_at → finished_at: parse, progress UPDATE, note + task transaction. */
  runP50: number;
  runP99: number;
  byKind: { kind: ContentKind; count: number; p50: number; runP50: number }[];
  sample: { count: number; clientP50: number; clientP99: number; serverP50: number; serverP99: number };
}

const toMs = (iso: string | null) => (iso === null ? Number.NaN : Date.parse(iso));
const sorted = (values: number[]) => values.filter(Number.isFinite).sort((a, b) => a - b);

function figures(run: RunResult): Figures {
  const accepted = run.submissions.filter((submission) => submission.id !== undefined);
  const views = accepted.map((submission) => ({ submission, task: run.tasks.get(submission.id!) }));
  const completed = views.filter(({ task }) => task?.status === "completed") as { submission: Submission; task: TaskView }[];
  const latencyOf = (task: TaskView) => toMs(task.finished_at) - toMs(task.created_at);
  const latencies = sorted(completed.map(({ task }) => latencyOf(task)));
  const waits = sorted(completed.map(({ task }) => toMs(task.started_at) - toMs(task.created_at)));
  const runs = sorted(completed.map(({ task }) => toMs(task.finished_at) - toMs(task.started_at)));
  const firstCreated = Math.min(...completed.map(({ task }) => toMs(task.created_at)));
  const lastFinished = Math.max(...completed.map(({ task }) => toMs(task.finished_at)));
  const firstSent = Math.min(...run.submissions.map((submission) => submission.sentAt));
  const lastReturned = Math.max(...run.submissions.map((submission) => submission.returnedAt));
  const posts = sorted(run.submissions.map((submission) => submission.returnedAt - submission.sentAt));
  const kinds = [...new Set(completed.map(({ submission }) => submission.spec.kind))];
  const seen = completed.filter(({ submission }) => submission.seenFinishedAt !== undefined);
  const client = sorted(seen.map(({ submission }) => submission.seenFinishedAt! - submission.returnedAt));
  const server = sorted(seen.map(({ task }) => latencyOf(task)));
  const endToEndSeconds = (lastFinished - firstCreated) / 1000;
  return {
    submitted: run.submissions.length,
    rejected: run.submissions.length - accepted.length,
    completed: completed.length,
    failed: views.filter(({ task }) => task?.status === "failed").length,
    unfinished: views.filter(({ task }) => !task || !isTerminal(task)).length,
    submittedPerSecond: run.submissions.length / ((lastReturned - firstSent) / 1000),
    postP50: percentile(posts, 0.5),
    postP99: percentile(posts, 0.99),
    endToEndSeconds,
    tasksPerSecond: completed.length / endToEndSeconds,
    latency: { p50: percentile(latencies, 0.5), p90: percentile(latencies, 0.9), p99: percentile(latencies, 0.99), max: latencies.at(-1) ?? Number.NaN },
    waitP50: percentile(waits, 0.5),
    waitP99: percentile(waits, 0.99),
    runP50: percentile(runs, 0.5),
    runP99: percentile(runs, 0.99),
    byKind: kinds.map((kind) => {
      const ofKind = completed.filter(({ submission }) => submission.spec.kind === kind);
      return {
        kind,
        count: ofKind.length,
        p50: percentile(sorted(ofKind.map(({ task }) => latencyOf(task))), 0.5),
        runP50: percentile(sorted(ofKind.map(({ task }) => toMs(task.finished_at) - toMs(task.started_at))), 0.5),
      };
    }),
    sample: {
      count: seen.length,
      clientP50: percentile(client, 0.5),
      clientP99: percentile(client, 0.99),
      serverP50: percentile(server, 0.5),
      serverP99: percentile(server, 0.99),
    },
  };
}

const results = new Map<string, Figures>();

function report(run: RunResult) {
  const f = figures(run);
  results.set(run.name, f);
  const { cpu } = run;
  const perTask = (ms: number) => format(ms / Math.max(1, f.completed), 2);
  const lines = [
    `\n== ${run.name}: ${run.description} ==`,
    `submitted       ${f.submitted} at ${format(f.submittedPerSecond, 0)} tasks/s (client clock, first POST sent → last answered); ` +
      `POST p50 ${format(f.postP50, 1)} ms, p99 ${format(f.postP99, 1)} ms; rejected ${f.rejected}`,
    `completed       ${f.completed} in ${format(f.endToEndSeconds, 2)} s = ${format(f.tasksPerSecond, 1)} tasks/s end to end ` +
      `(server clock, first created_at → last finished_at); client saw all done after ${format(run.clientSeconds, 2)} s`,
    `failures        ${f.rejected + f.failed + f.unfinished} (rejected ${f.rejected}, failed ${f.failed}, unfinished ${f.unfinished})`,
    `latency         created_at → finished_at: p50 ${ms(f.latency.p50)}  p90 ${ms(f.latency.p90)}  p99 ${ms(f.latency.p99)}  max ${ms(f.latency.max)}`,
    `  of which      created_at → started_at (queue + pick-up): p50 ${ms(f.waitP50)}, p99 ${ms(f.waitP99)}; ` +
      `started_at → finished_at (the job): p50 ${ms(f.runP50)}, p99 ${ms(f.runP99)}`,
    `  by content    ${f.byKind.map((kind) => `${kind.kind} ×${kind.count}: p50 ${ms(kind.p50)} (job ${ms(kind.runP50)})`).join("; ")}`,
    `client-observed ${f.sample.count} sampled tasks, POST answered → first GET /api/tasks/{id} showing it finished ` +
      `(polled every ${run.name === "burst" ? BURST_SAMPLE.pollMs : TRICKLE_SAMPLE.pollMs} ms): p50 ${ms(f.sample.clientP50)}, p99 ${ms(f.sample.clientP99)}; ` +
      `the same tasks' server latency p50 ${ms(f.sample.serverP50)}, p99 ${ms(f.sample.serverP99)}`,
    `CPU             per completed task: service ${perTask(cpu.serviceMs)} ms, Postgres ${perTask(cpu.postgresMs)} ms, ` +
      `this client ${perTask(cpu.clientMs)} ms; machine idle ${format(cpu.idleShare * 100, 0)}%, iowait ${format(cpu.iowaitShare * 100, 0)}% of ${os.cpus().length} cores; ` +
      `everything else (other processes, kernel I/O threads) ${format(cpu.otherMs / 1000 / run.clientSeconds, 2)} cores on average` +
      `${cpu.otherMs / 1000 / run.clientSeconds > OUTSIDE_LOAD_CORES ? " (outside load: figures are pessimistic)" : ""}`,
  ];
  const errors = [...new Set(run.submissions.flatMap((submission) => (submission.error ? [`${submission.status} ${submission.error}`] : [])))];
  const failedTasks = [...new Set([...run.tasks.values()].flatMap((task) => (task.status === "failed" ? [task.error ?? "?"] : [])))];
  if (errors.length) lines.push(`  POST errors: ${errors.slice(0, 3).join(" | ")}`);
  if (failedTasks.length) lines.push(`  task errors: ${failedTasks.slice(0, 3).join(" | ")}`);
  console.log(lines.join("\n"));
}

function summary(burst: RunResult, trickle: RunResult, concurrency: number): number {
  const b = results.get(burst.name)!;
  const t = results.get(trickle.name)!;
  const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
  const failures = [b, t].reduce((sum, f) => sum + f.rejected + f.failed + f.unfinished, 0);
  const cpu = fs.readFileSync("/proc/cpuinfo", "utf8").match(/^model name\s*:\s*(.+)$/m)?.[1] ?? "unknown CPU";
  const machine = `${cpu}, ${os.cpus().length} cores, Bun ${Bun.version}, ${os.platform()} ${os.release()}`;
  const setup =
    `One service process (ROLE=all, WORKER_CONCURRENCY=${concurrency}, embedded Postgres, libSQL file), ${WARMUP_TASKS} warm-up tasks first; ` +
    `pasted content: ${Object.entries(KIND_DESCRIPTIONS).map(([kind, text]) => `${kind} (${text})`).join("; ")}; 50% / 40% / 10%`;
  const checks = [
    `Throughput, burst: ${format(b.tasksPerSecond, 1)} tasks/s completed end to end (target ≥ ${TARGET.tasksPerSecond}) ${verdict(b.tasksPerSecond >= TARGET.tasksPerSecond)}`,
    `Latency p50, trickle (queue not backed up; NOTIFY start latency): ${ms(t.latency.p50)} (target ≤ ${TARGET.p50Ms} ms) ${verdict(t.latency.p50 <= TARGET.p50Ms)}`,
    `Latency p50, burst (includes waiting behind up to ${BURST_TASKS.toLocaleString("en-US")} queued tasks): ${ms(b.latency.p50)} (target ≤ ${TARGET.p50Ms} ms) ${verdict(b.latency.p50 <= TARGET.p50Ms)}`,
    `Jobs start by LISTEN/NOTIFY, not the 2 s poll: trickle created → started p50 ${ms(t.waitP50)}, p99 ${ms(t.waitP99)} ` +
      `(polling would give ~1,000 ms) ${verdict(t.waitP99 < 500)}`,
    `Failures: ${failures} (target 0) ${verdict(failures === 0)}`,
  ];
  const notes = [
    `Client-observed (sampled, POST answered → a GET showing it finished): burst p50 ${ms(b.sample.clientP50)} (${b.sample.count} tasks, ` +
      `polled every ${BURST_SAMPLE.pollMs} ms), trickle p50 ${ms(t.sample.clientP50)}, p99 ${ms(t.sample.clientP99)} (${t.sample.count} tasks, polled every ${TRICKLE_SAMPLE.pollMs} ms)`,
    `Service CPU per task (burst): ${format(burst.cpu.serviceMs / Math.max(1, b.completed), 1)} ms in the service process (API + worker + libSQL, one JS thread), ` +
      `${format(burst.cpu.postgresMs / Math.max(1, b.completed), 1)} ms in Postgres`,
  ];
  const outside = Math.max(burst.cpu.otherMs / 1000 / burst.clientSeconds, trickle.cpu.otherMs / 1000 / trickle.clientSeconds);
  if (outside > OUTSIDE_LOAD_CORES) {
    notes.push(`Other processes used up to ${format(outside, 2)} cores during the runs: the figures are pessimistic; rerun on a quiet machine`);
  }
  console.log(`\nRhizome import-task benchmark\n${machine}\n${setup}`);
  console.log(
    "Latency is server-side, created_at → finished_at of each task (both stamped by the service's clock); tasks/s is completed\n" +
      "tasks over first created_at → last finished_at. Client-observed latency (POST answered → a GET showing the task finished)\n" +
      "is measured on a sample and includes HTTP and the polling interval. The client shares the 2 cores with the service.",
  );
  console.log(`${[...checks, ...notes].join("\n")}\nTotal time ${elapsed(started)}`);

  console.log("\n--- summary for the README ---");
  console.log(`\`bun run bench:tasks\`, ${new Date().toISOString().slice(0, 10)}: ${machine}. ${setup}.\n`);
  console.log("| Run | Tasks | Submitted/s | Completed/s | p50 | p90 | p99 | max | Queue wait p50 | Job p50 | Failures |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const [run, f] of [
    [burst, b],
    [trickle, t],
  ] as const) {
    console.log(
      `| ${run.name}: ${run.description} | ${f.submitted} | ${format(f.submittedPerSecond, 0)} | ${format(f.tasksPerSecond, 1)} | ` +
        `${ms(f.latency.p50)} | ${ms(f.latency.p90)} | ${ms(f.latency.p99)} | ${ms(f.latency.max)} | ${ms(f.waitP50)} | ${ms(f.runP50)} | ${f.rejected + f.failed + f.unfinished} |`,
    );
  }
  console.log(`\n${[...checks, ...notes].map((line) => `- ${line}`).join("\n")}`);
  console.log("--- end of summary ---");
  return failures;
}

function ms(value: number): string {
  return Number.isFinite(value) ? `${format(value, 0)} ms` : "n/a";
}

function format(value: number, digits: number): string {
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function elapsed(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

function progress(message: string) {
  console.error(`[bench:tasks] ${message}`);
}

try {
  await main();
} finally {
  await cleanUp();
}
