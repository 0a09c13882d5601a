// `bun run bench:soak`: many clients at once, for a while, doing what users do. One service process (ROLE=all: API +
// worker, embedded Postgres, libSQL file); each client has its own account (registered up front) and a few notes, then
// runs a closed loop for the whole duration: list, read, create and update notes, search (once GET /api/notes?q=
// exists), paste content for import and poll that task until it finishes, and now and then log in again (argon2id)
// and log the old token out. Prints requests/s, p50/p99 overall and per operation, errors by kind, the service's RSS
// sampled every second (shown every 5 s) with its trend over the second half, and /healthz throughput at the same
// concurrency before and after as the floor. Duration and clients: --seconds/--clients or SOAK_SECONDS/SOAK_CLIENTS.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { seededRandom } from "../../src/modules/graph/seeded-random";
import { percentile } from "./load";
import { draftContent, draftTags } from "./seed-notes";
import { benchScratch, peakResidentBytes, residentBytes, type ServerProcess } from "./server-process";
import { BENCH_PASSWORD, isTerminal, registerAndLogin, type Session, type TaskView } from "./tasks-client";
import { taskSpecs } from "./tasks-content";
import { cpuBetween, cpuSnapshot, type CpuUse } from "./tasks-cpu";

const { values: flags } = parseArgs({ options: { clients: { type: "string" }, seconds: { type: "string" } } });
const CLIENTS = Number(flags.clients ?? process.env.SOAK_CLIENTS ?? 200);
const SECONDS = Number(flags.seconds ?? process.env.SOAK_SECONDS ?? 60);
/** /healthz at the same concurrency, before and after the soak. */
const BASELINE_SECONDS = Number(process.env.SOAK_BASELINE_SECONDS ?? 5);
/** Each client logs in again this often, the first time at a random point in the interval. */
const RELOGIN_SECONDS = Number(process.env.SOAK_RELOGIN_SECONDS ?? 300);
const NOTES_PER_CLIENT = 5;
/** Accounts registered at once: each registration and first login is an argon2id hash (19 MiB, t=2). */
const SETUP_CONCURRENCY = 8;
const TASK_POLL_MS = 250;
const DRAIN_TIMEOUT_MS = 30_000;
const RSS_SAMPLE_MS = 1_000;
const RSS_PRINT_EVERY = 5;
const MIB = 1024 * 1024;
/** RSS growth slower than this is no trend; the verdict allows for the uncertainty of a short window (see rssTrend). */
const FLAT_MIB_PER_MINUTE = 2;
/** CPU used outside the service, its Postgres and this client beyond which a run is flagged (as bench:tasks does). */
const OUTSIDE_LOAD_CORES = 0.25;

if (!(CLIENTS >= 1 && SECONDS > 0)) throw new Error(`--clients and --seconds must be positive (got ${CLIENTS}, ${SECONDS})`);

type Operation = "list" | "read" | "create" | "update" | "search" | "import" | "poll task" | "login" | "logout";
/** How often each kind of request is picked when a client has nothing else due (reads dominate, as in use). */
const MIX: Partial<Record<Operation, number>> = { list: 25, read: 35, create: 10, update: 10, search: 10, import: 10 };

interface Client {
  index: number;
  username: string;
  session: Session;
  noteIds: number[];
  task?: { id: number; nextPollAt: number };
  reloginAt: number;
  random: () => number;
  imports: number;
}

const now = () => performance.now();
const started = now();
const scratch = benchScratch("rhizome-bench-soak-");
const { workDir, cleanUp } = scratch;
let service: ServerProcess | undefined;

class Recorder {
  latencies = new Map<string, number[]>();
  errors = new Map<string, number>();
  requests = 0;

  record(operation: string, ms: number) {
    this.requests++;
    let list = this.latencies.get(operation);
    if (!list) this.latencies.set(operation, (list = []));
    list.push(ms);
  }

  error(kind: string, count = 1) {
    this.errors.set(kind, (this.errors.get(kind) ?? 0) + count);
  }

  get errorCount() {
    return [...this.errors.values()].reduce((sum, count) => sum + count, 0);
  }
}

/** One request, timed; a non-2xx answer or a network failure is an error of its own kind, and yields undefined. */
async function call(
  recorder: Recorder,
  operation: Operation,
  url: string,
  init: RequestInit,
  expected: number,
): Promise<any | undefined> {
  const startedAt = now();
  try {
    const response = await fetch(url, init);
    const text = await response.text();
    recorder.record(operation, now() - startedAt);
    if (response.status !== expected) {
      let code = "";
      try {
        code = ` ${JSON.parse(text).code ?? ""}`;
      } catch {}
      recorder.error(`${operation}: HTTP ${response.status}${code}`);
      return undefined;
    }
    return text ? JSON.parse(text) : null;
  } catch (error) {
    recorder.record(operation, now() - startedAt);
    recorder.error(`${operation}: ${error instanceof Error ? `${error.name} ${error.message}` : String(error)}`.slice(0, 120));
    return undefined;
  }
}

/** An authenticated request; `body` is JSON text. */
const authed = (session: Session, method: string, body?: string): RequestInit => ({
  method,
  headers: { authorization: `Bearer ${session.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
  body,
});

function noteBody(client: Client, serial: number): { title: string; content: string; tags: string[] } {
  const { random } = client;
  const content = draftContent(random, serial);
  return { title: `Soak ${client.index}.${serial}: ${content.split("\n")[0]!.slice(2, 60)}`, content, tags: draftTags(random) };
}

/** Words of the notes' own vocabulary, so searches find something. */
const SEARCH_WORDS = [...new Set(draftContent(seededRandom(1), 0).toLowerCase().match(/\p{L}{5,}/gu))].slice(0, 20);

/** GET its import task; once finished, its note joins the client's notes (a failed import is an error). */
async function pollTask(client: Client, recorder: Recorder): Promise<void> {
  const task: TaskView | undefined = await call(recorder, "poll task", `${client.session.baseUrl}/api/tasks/${client.task!.id}`, authed(client.session, "GET"), 200);
  if (task && isTerminal(task)) {
    if (task.status === "failed") recorder.error(`import task failed: ${task.error}`);
    else client.noteIds.push(task.note_id!);
    client.task = undefined;
  } else if (client.task) client.task.nextPollAt = now() + TASK_POLL_MS;
}

/** What one client does next: log in again when due, else poll its import when due, else one request of the mix. */
async function step(client: Client, recorder: Recorder, search: boolean, importBodies: string[]): Promise<void> {
  const { session } = client;
  const base = `${session.baseUrl}/api`;
  const at = now();
  if (at >= client.reloginAt) {
    client.reloginAt = at + RELOGIN_SECONDS * 1000;
    const login = await call(
      recorder,
      "login",
      `${base}/auth/login`,
      {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ username: client.username, password: BENCH_PASSWORD }).toString(),
      },
      200,
    );
    if (!login) return;
    const old = { ...session };
    session.token = login.access_token;
    await call(recorder, "logout", `${base}/auth/logout`, authed(old, "POST"), 204);
    return;
  }
  if (client.task && at >= client.task.nextPollAt) return pollTask(client, recorder);
  const operation = pick(client.random, search, client.task !== undefined);
  const noteId = () => client.noteIds[Math.floor(client.random() * client.noteIds.length)]!;
  switch (operation) {
    case "list": {
      const page = 1 + Math.floor(client.random() * 2);
      await call(recorder, "list", `${base}/notes?page=${page}&size=20`, authed(session, "GET"), 200);
      return;
    }
    case "read":
      await call(recorder, "read", `${base}/notes/${noteId()}`, authed(session, "GET"), 200);
      return;
    case "create": {
      const note = await call(recorder, "create", `${base}/notes`, authed(session, "POST", JSON.stringify(noteBody(client, client.noteIds.length))), 201);
      if (note) client.noteIds.push(note.id);
      return;
    }
    case "update": {
      const { title, content } = noteBody(client, client.noteIds.length);
      await call(recorder, "update", `${base}/notes/${noteId()}`, authed(session, "PUT", JSON.stringify({ title, content })), 200);
      return;
    }
    case "search": {
      const word = SEARCH_WORDS[Math.floor(client.random() * SEARCH_WORDS.length)]!;
      await call(recorder, "search", `${base}/notes?q=${word}&size=20`, authed(session, "GET"), 200);
      return;
    }
    case "import": {
      const body = importBodies[(client.index * 7 + client.imports++) % importBodies.length]!;
      const task = await call(recorder, "import", `${base}/tasks`, authed(session, "POST", body), 201);
      if (task) client.task = { id: task.id, nextPollAt: now() + TASK_POLL_MS };
      return;
    }
    default:
      throw new Error(`no step for ${operation}`);
  }
}

/** A weighted pick from MIX; no search while it does not exist, no second import while one is being followed. */
function pick(random: () => number, search: boolean, following: boolean): Operation {
  const choices = Object.entries(MIX).filter(([operation]) => (search || operation !== "search") && (!following || operation !== "import")) as [Operation, number][];
  let roll = random() * choices.reduce((sum, [, weight]) => sum + weight, 0);
  for (const [operation, weight] of choices) {
    roll -= weight;
    if (roll < 0) return operation;
  }
  return choices.at(-1)![0];
}

/** `CLIENTS` closed loops of GET /healthz for `seconds`: the floor the mix is compared with. */
async function healthz(baseUrl: string, seconds: number): Promise<{ requestsPerSecond: number; p50: number; p99: number; errors: number }> {
  const recorder = new Recorder();
  const stopAt = now() + seconds * 1000;
  const loop = async () => {
    while (now() < stopAt) {
      const startedAt = now();
      try {
        const response = await fetch(`${baseUrl}/healthz`);
        await response.arrayBuffer();
        recorder.record("healthz", now() - startedAt);
        if (response.status !== 200) recorder.error(`healthz: HTTP ${response.status}`);
      } catch (error) {
        recorder.error(`healthz: ${String(error)}`);
        await Bun.sleep(10);
      }
    }
  };
  const startedAt = now();
  await Promise.all(Array.from({ length: CLIENTS }, loop));
  const latencies = (recorder.latencies.get("healthz") ?? []).sort((a, b) => a - b);
  return {
    requestsPerSecond: recorder.requests / ((now() - startedAt) / 1000),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    errors: recorder.errorCount,
  };
}

interface Trend {
  /** Least-squares slope, MiB per minute. */
  slope: number;
  /** Twice its standard error: the GC sawtooth makes a short window's slope uncertain by about this much. */
  margin: number;
  verdict: "no growth trend" | "growing" | "inconclusive";
}

/** The RSS trend of the samples: growth only when the slope stays above the threshold with its margin taken off. */
function rssTrend(samples: { seconds: number; bytes: number }[]): Trend {
  const n = samples.length;
  if (n < 3) return { slope: Number.NaN, margin: Number.NaN, verdict: "inconclusive" };
  const meanX = samples.reduce((sum, sample) => sum + sample.seconds, 0) / n;
  const meanY = samples.reduce((sum, sample) => sum + sample.bytes / MIB, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const { seconds, bytes } of samples) {
    covariance += (seconds - meanX) * (bytes / MIB - meanY);
    variance += (seconds - meanX) ** 2;
  }
  const perSecond = covariance / variance;
  const residuals = samples.reduce((sum, { seconds, bytes }) => sum + (bytes / MIB - meanY - perSecond * (seconds - meanX)) ** 2, 0);
  const margin = 2 * Math.sqrt(residuals / (n - 2) / variance) * 60;
  const slope = perSecond * 60;
  const verdict = slope - margin > FLAT_MIB_PER_MINUTE ? "growing" : slope + margin < FLAT_MIB_PER_MINUTE ? "no growth trend" : "inconclusive";
  return { slope, margin, verdict };
}

async function main() {
  progress(`work directory ${workDir}; ${CLIENTS} clients for ${SECONDS} s`);
  // An outside DATABASE_URL or LIBSQL_URL would point the service elsewhere: empty means unset.
  service = await scratch.start("service", "service-server.ts", { ROLE: "all", DATA_DIR: path.join(workDir, "service"), DATABASE_URL: "", LIBSQL_URL: "" });
  const baseUrl = service.url;
  const pid = service.pid;
  progress(`service pid ${pid} on ${baseUrl}`);

  const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { paths: Record<string, { get?: { parameters?: { name: string }[] } }> };
  // The document names the list route /notes under an /api server, or in full as /api/notes.
  const listNotes = document.paths["/api/notes"] ?? document.paths["/notes"];
  const search = (listNotes?.get?.parameters ?? []).some((parameter) => parameter.name === "q");
  progress(search ? "GET /api/notes?q= exists: search is in the mix" : "GET /api/notes?q= does not exist yet: search is left out of the mix");

  // Accounts and notes up front, so the soak itself logs in only as often as real clients do.
  const setupStarted = now();
  const clients: Client[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: SETUP_CONCURRENCY }, async () => {
      while (next < CLIENTS) {
        const index = next++;
        const username = `soak_${index}`;
        const session = await registerAndLogin(baseUrl, username);
        const random = seededRandom(1000 + index);
        const client: Client = { index, username, session, noteIds: [], reloginAt: 0, random, imports: 0 };
        for (let serial = 0; serial < NOTES_PER_CLIENT; serial++) {
          const response = await fetch(`${baseUrl}/api/notes`, authed(session, "POST", JSON.stringify(noteBody(client, serial))));
          if (response.status !== 201) throw new Error(`seeding notes: ${response.status} ${await response.text()}`);
          client.noteIds.push(((await response.json()) as { id: number }).id);
        }
        clients[index] = client;
      }
    }),
  );
  progress(`${CLIENTS} accounts with ${NOTES_PER_CLIENT} notes each in ${elapsed(setupStarted)}`);
  const importBodies = taskSpecs(64, 0, 7).map((spec) => spec.body);

  const healthBefore = await healthz(baseUrl, BASELINE_SECONDS);
  progress(`/healthz before: ${format(healthBefore.requestsPerSecond, 0)} req/s, p50 ${ms(healthBefore.p50)}, p99 ${ms(healthBefore.p99)}`);

  const recorder = new Recorder();
  const rss: { seconds: number; bytes: number }[] = [];
  const soakStarted = now();
  const stopAt = soakStarted + SECONDS * 1000;
  for (const client of clients) client.reloginAt = soakStarted + client.random() * RELOGIN_SECONDS * 1000;
  const rssAtStart = residentBytes(pid);
  const cpuAtStart = cpuSnapshot(pid);
  const sample = () => {
    const seconds = (now() - soakStarted) / 1000;
    rss.push({ seconds, bytes: residentBytes(pid) });
    if (rss.length % RSS_PRINT_EVERY === 1) {
      progress(`t=${format(seconds, 0)} s: RSS ${mib(rss.at(-1)!.bytes)}, ${recorder.requests} requests, ${recorder.errorCount} errors`);
    }
  };
  sample();
  const sampler = setInterval(sample, RSS_SAMPLE_MS);
  await Promise.all(
    clients.map(async (client) => {
      while (now() < stopAt) await step(client, recorder, search, importBodies);
    }),
  );
  const soakSeconds = (now() - soakStarted) / 1000;
  clearInterval(sampler);
  sample();
  const rssAtEnd = residentBytes(pid);
  const cpu = cpuBetween(cpuAtStart, cpuSnapshot(pid));

  // Imports still being followed finish now; each is one more poll until it is done (unfinished ones are errors).
  const drainRecorder = new Recorder();
  const drainDeadline = now() + DRAIN_TIMEOUT_MS;
  for (let waiting = clients.filter((client) => client.task); waiting.length > 0; waiting = clients.filter((client) => client.task)) {
    if (now() > drainDeadline) {
      recorder.error(`import task unfinished ${DRAIN_TIMEOUT_MS / 1000} s after the soak`, waiting.length);
      break;
    }
    await Promise.all(waiting.map((client) => pollTask(client, drainRecorder)));
    await Bun.sleep(TASK_POLL_MS);
  }
  for (const [kind, count] of drainRecorder.errors) recorder.error(kind, count);

  const healthAfter = await healthz(baseUrl, BASELINE_SECONDS);
  progress(`/healthz after: ${format(healthAfter.requestsPerSecond, 0)} req/s, p50 ${ms(healthAfter.p50)}, p99 ${ms(healthAfter.p99)}`);
  await Bun.sleep(2_000);
  const rssIdleAfter = residentBytes(pid);
  const rssPeak = peakResidentBytes(pid);

  report({
    recorder,
    soakSeconds,
    search,
    healthBefore,
    healthAfter,
    rss,
    rssAtStart,
    rssAtEnd,
    rssIdleAfter,
    rssPeak,
    cpu,
    imports: clients.reduce((sum, client) => sum + client.imports, 0),
  });
}

function report(run: {
  recorder: Recorder;
  soakSeconds: number;
  search: boolean;
  healthBefore: Awaited<ReturnType<typeof healthz>>;
  healthAfter: Awaited<ReturnType<typeof healthz>>;
  rss: { seconds: number; bytes: number }[];
  rssAtStart: number;
  rssAtEnd: number;
  rssIdleAfter: number;
  rssPeak: number;
  cpu: CpuUse;
  imports: number;
}) {
  const { recorder } = run;
  const all = [...recorder.latencies.values()].flat().sort((a, b) => a - b);
  const requestsPerSecond = recorder.requests / run.soakSeconds;
  const ratio = requestsPerSecond / run.healthBefore.requestsPerSecond;
  const firstHalf = rssTrend(run.rss.filter((sample) => sample.seconds < run.soakSeconds / 2));
  const secondHalf = rssTrend(run.rss.filter((sample) => sample.seconds >= run.soakSeconds / 2));
  const slopes = `second half ${format(secondHalf.slope, 1)} ± ${format(secondHalf.margin, 1)} MiB/min (first half ${format(firstHalf.slope, 1)} ± ${format(firstHalf.margin, 1)})`;
  const errors = recorder.errorCount + run.healthBefore.errors + run.healthAfter.errors;
  const cores = (ms: number) => format(ms / 1000 / run.soakSeconds, 2);
  const outside = run.cpu.otherMs / 1000 / run.soakSeconds > OUTSIDE_LOAD_CORES;
  const model = fs.readFileSync("/proc/cpuinfo", "utf8").match(/^model name\s*:\s*(.+)$/m)?.[1] ?? "unknown CPU";
  const machine = `${model}, ${os.cpus().length} cores, Bun ${Bun.version}, ${os.platform()} ${os.release()}`;
  const weights = Object.entries(MIX).filter(([operation]) => run.search || operation !== "search");
  const total = weights.reduce((sum, [, weight]) => sum + weight, 0);
  const setup =
    `One service process (ROLE=all, embedded Postgres, libSQL file); ${CLIENTS} clients, each its own account and ${NOTES_PER_CLIENT} notes made up front, ` +
    `in closed loops (no think time) for ${SECONDS} s; mix ${weights.map(([operation, weight]) => `${operation} ${format((weight / total) * 100, 0)}%`).join(", ")}, ` +
    `an import's task polled every ${TASK_POLL_MS} ms until it finishes, a new login (and logout of the old token) every ${RELOGIN_SECONDS} s per client from a random start` +
    `${run.search ? "" : "; search left out: GET /api/notes?q= does not exist yet"}; /healthz at the same concurrency for ${BASELINE_SECONDS} s before and after; load generator on the same cores`;

  const operations = [...recorder.latencies.entries()].map(([operation, latencies]) => {
    latencies.sort((a, b) => a - b);
    const errorCount = [...recorder.errors].filter(([kind]) => kind.startsWith(`${operation}:`)).reduce((sum, [, count]) => sum + count, 0);
    return { operation, count: latencies.length, perSecond: latencies.length / run.soakSeconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), errors: errorCount };
  });
  operations.sort((a, b) => b.count - a.count);

  const lines = [
    `\nRhizome soak benchmark\n${machine}\n${setup}`,
    `Requests   ${recorder.requests.toLocaleString("en-US")} in ${format(run.soakSeconds, 1)} s = ${format(requestsPerSecond, 0)} req/s; p50 ${ms(all.length ? percentile(all, 0.5) : Number.NaN)}, p99 ${ms(percentile(all, 0.99))}; ` +
      `service CPU ${format(run.cpu.serviceMs / Math.max(1, recorder.requests), 2)} ms/request; ${run.imports} imports`,
    `CPU        cores busy on average: service ${cores(run.cpu.serviceMs)}, its Postgres ${cores(run.cpu.postgresMs)}, this client ${cores(run.cpu.clientMs)}, ` +
      `everything else ${cores(run.cpu.otherMs)}${outside ? " (outside load: figures are pessimistic)" : ""}; machine idle ${format(run.cpu.idleShare * 100, 0)}%`,
    `Floor      /healthz (${CLIENTS} clients): before ${format(run.healthBefore.requestsPerSecond, 0)} req/s (p50 ${ms(run.healthBefore.p50)}, p99 ${ms(run.healthBefore.p99)}), ` +
      `after ${format(run.healthAfter.requestsPerSecond, 0)} req/s (p50 ${ms(run.healthAfter.p50)}, p99 ${ms(run.healthAfter.p99)}) = ${format(run.healthAfter.requestsPerSecond / run.healthBefore.requestsPerSecond, 2)}× after/before; ` +
      `the mix runs at ${format(ratio, 2)}× the /healthz rate`,
    `RSS        service at start ${mib(run.rssAtStart)}, at end ${mib(run.rssAtEnd)}, idle 2 s after the last /healthz ${mib(run.rssIdleAfter)}, peak since start (set-up included) ${mib(run.rssPeak)}`,
    `  every 5 s ${run.rss.filter((_, index) => index % RSS_PRINT_EVERY === 0).map((sample) => `${format(sample.seconds, 0)} s ${format(sample.bytes / MIB, 0)}`).join(", ")} MiB`,
    `  trend    sampled every ${RSS_SAMPLE_MS / 1000} s, least squares ± 2 standard errors: ${slopes}: ${secondHalf.verdict} (threshold ${FLAT_MIB_PER_MINUTE} MiB/min)`,
    `Errors     ${errors} (target 0)${errors ? "" : " PASS"}`,
  ];
  for (const [kind, count] of [...recorder.errors].sort((a, b) => b[1] - a[1])) lines.push(`  ${count} × ${kind}`);
  console.log(lines.join("\n"));

  console.log("\n--- summary for the README ---");
  console.log(`\`npm run bench:soak\`, ${new Date().toISOString().slice(0, 10)}: ${machine}. ${setup}.\n`);
  console.log("| Operation | Requests | req/s | p50 | p99 | Errors |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const op of operations) console.log(`| ${op.operation} | ${op.count.toLocaleString("en-US")} | ${format(op.perSecond, 0)} | ${ms(op.p50)} | ${ms(op.p99)} | ${op.errors} |`);
  console.log(`| **all** | ${recorder.requests.toLocaleString("en-US")} | ${format(requestsPerSecond, 0)} | ${ms(percentile(all, 0.5))} | ${ms(percentile(all, 0.99))} | ${recorder.errorCount} |`);
  console.log(`| /healthz before / after (floor) | | ${format(run.healthBefore.requestsPerSecond, 0)} / ${format(run.healthAfter.requestsPerSecond, 0)} | ${ms(run.healthBefore.p50)} / ${ms(run.healthAfter.p50)} | ${ms(run.healthBefore.p99)} / ${ms(run.healthAfter.p99)} | ${run.healthBefore.errors + run.healthAfter.errors} |`);
  console.log(
    `\n- Mix throughput ${format(requestsPerSecond, 0)} req/s = ${format(ratio, 2)}× /healthz at the same concurrency; /healthz after the soak ${format(run.healthAfter.requestsPerSecond / run.healthBefore.requestsPerSecond, 2)}× its rate before`,
  );
  console.log(`- Errors: ${errors} (target 0) ${errors === 0 ? "PASS" : "FAIL"}${errors ? `: ${[...recorder.errors].map(([kind, count]) => `${count} × ${kind}`).join("; ")}` : ""}`);
  console.log(
    `- Service RSS: ${mib(run.rssAtStart)} at start, ${mib(run.rssAtEnd)} at end, peak ${mib(run.rssPeak)}; ${slopes}; ` +
      `target no growth trend (under ${FLAT_MIB_PER_MINUTE} MiB/min): ${{ "no growth trend": "PASS", growing: "FAIL", inconclusive: "INCONCLUSIVE (the sawtooth hides a trend this small; run longer)" }[secondHalf.verdict]}`,
  );
  console.log(
    `- CPU, cores busy on average: service ${cores(run.cpu.serviceMs)}, its Postgres ${cores(run.cpu.postgresMs)}, this client ${cores(run.cpu.clientMs)}, ` +
      `other processes ${cores(run.cpu.otherMs)}${outside ? " (outside load: the figures are pessimistic; rerun on a quiet machine)" : ""}`,
  );
  console.log("--- end of summary ---");
  if (errors > 0 || secondHalf.verdict === "growing") process.exitCode = 1;
}

function ms(value: number): string {
  return Number.isFinite(value) ? `${format(value, value < 10 ? 1 : 0)} ms` : "n/a";
}

function mib(bytes: number): string {
  return `${format(bytes / MIB, 1)} MiB`;
}

function format(value: number, digits: number): string {
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function elapsed(since: number): string {
  return `${((now() - since) / 1000).toFixed(1)} s`;
}

function progress(message: string) {
  console.error(`[bench:soak] ${message}`);
}

try {
  await main();
} finally {
  await cleanUp();
}
