// `bun run bench:api`: the service against a bare Bun.serve baseline on the same data, in one run.
// Throughput and latency at 64 connections per route, server RSS, list latency at 1,000 vs 100,000
// notes, and the ZIP export of 10,000 notes. Prints a table, PASS/FAIL per target, and a summary.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createClient } from "@libsql/client";
import { percentile, runLoad, type LoadResult } from "./load";
import { seededRandom } from "../../src/modules/graph/seeded-random";
import { draftContent, draftTags, seedNotes, TAG_VOCABULARY } from "./seed-notes";
import { registerAndLogin, type Session } from "./tasks-client";
import { benchWorkDir, cpuMilliseconds, peakResidentBytes, residentBytes, startScriptEnvironment, startServerProcess, watchResidentMemory, type ServerProcess } from "./server-process";

const NOTES = 10_000;
const CONNECTIONS = 64;
// Per route, each server gets 1 s of warm-up, then 5 recorded 1 s slices in alternation (each after
// 250 ms of settling). Overridable for a quick trial; the figures worth recording use the defaults.
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 1_000);
const SLICES = Number(process.env.BENCH_SLICES ?? 5);
const SLICE_MS = Number(process.env.BENCH_SLICE_MS ?? 1_000);
const SETTLE_MS = 250;
const SCALING = { small: 1_000, large: 100_000, warmup: 30, samples: 300, tag: "ideas" };
const MIB = 1024 * 1024;
/** The variables `npm run start:api` sets before `bun run`: the role and the runtime's memory settings. */
const API_NODE_ENVIRONMENT = startScriptEnvironment("start:api");
const TARGET = { readRatio: 0.8, writeRatio: 0.7, rssBytes: 150 * MIB, scalingRatio: 1.2, exportMBps: 60, exportGrowthBytes: 50 * MIB };

interface Route {
  name: string;
  method: "GET" | "POST";
  paths: string[];
  body?: string;
  /** Read routes carry the ≥ 0.8 target, the write (POST) ≥ 0.7. */
  read: boolean;
}

interface RouteResult {
  route: Route;
  setting: string;
  service: LoadResult;
  baseline: LoadResult;
}

/** How each pair of servers runs: as `npm start` runs the service (runtime defaults, API and worker in one process) and as `npm run start:api` does. */
interface RuntimeSetting {
  name: string;
  service: Record<string, string>;
  baseline: Record<string, string>;
}

const RUNTIME_SETTINGS: RuntimeSetting[] = [
  { name: "start:api", service: API_NODE_ENVIRONMENT, baseline: runtimeSettings(API_NODE_ENVIRONMENT) },
  { name: "npm start", service: {}, baseline: {} },
];

const workDir = benchWorkDir("rhizome-bench-");
const serviceDir = path.join(workDir, "service");
const baselineDir = path.join(workDir, "baseline");
const started = performance.now();
const running: ServerProcess[] = [];

const cleanUp = async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
  fs.rmSync(workDir, { recursive: true, force: true });
};
// Ctrl-C: the servers see it too and stop themselves; what is left is the work directory.
process.once("SIGINT", async () => {
  await cleanUp();
  process.exit(130);
});

try {
  await main();
} finally {
  await cleanUp();
}

async function main() {
  progress(`work directory ${workDir}`);

  // The service runs as `npm run start:api` runs it first (API role, its runtime memory settings;
  // its job queue's embedded Postgres is a separate process) and seeds the data, then the baseline
  // gets a copy of the same database file and the same runtime settings.
  const [apiSetting, startSetting] = RUNTIME_SETTINGS as [RuntimeSetting, RuntimeSetting];
  let service = await start("service", "service-server.ts", serviceDir, apiSetting.service);
  const owner = await registerAndLogin(service.url, "bench");
  let seconds = performance.now();
  const dbFile = path.join(serviceDir, "rhizome.db");
  const { minId, maxId } = await seedNotes({ dbFile, userId: owner.userId, count: NOTES, seed: 1 });
  progress(`seeded ${NOTES.toLocaleString("en-US")} notes in ${elapsed(seconds)}`);
  await copyDatabase(dbFile, path.join(baselineDir, "rhizome.db"));
  let baseline = await start("baseline", "baseline-server.ts", baselineDir, apiSetting.baseline);
  const idle = { service: residentBytes(service.pid), baseline: residentBytes(baseline.pid) };
  const serviceRss = watchResidentMemory(service.pid);
  const baselineRss = watchResidentMemory(baseline.pid);
  // Where the service's peak falls, phase by phase.
  const phasePeaks: Record<string, number> = {};
  let phaseRss = watchResidentMemory(service.pid);
  const endPhase = (name: string) => {
    phasePeaks[name] = phaseRss.stop();
    phaseRss = watchResidentMemory(service.pid);
  };

  const random = seededRandom(2);
  const routes: Route[] = [
    { name: "GET /api/notes", method: "GET", paths: ["/api/notes?page=1&size=20"], read: true },
    { name: "GET /api/notes?tag=…", method: "GET", paths: TAG_VOCABULARY.map((tag) => `/api/notes?tag=${tag}&page=1&size=20`), read: true },
    {
      name: "GET /api/notes/{id}",
      method: "GET",
      paths: Array.from({ length: 1000 }, () => `/api/notes/${minId + Math.floor(random() * (maxId - minId + 1))}`),
      read: true,
    },
    {
      name: "POST /api/notes",
      method: "POST",
      paths: ["/api/notes"],
      body: JSON.stringify({ title: "Benchmark note", content: draftContent(random, 0), tags: draftTags(random) }),
      read: false,
    },
  ];
  await assertSameAnswers(service, baseline, owner, routes.filter((route) => route.read));

  const results: RouteResult[] = [];
  for (const route of routes.filter((candidate) => candidate.read)) results.push(await load(service, baseline, owner, route, apiSetting));
  endPhase("reads");
  // The export runs before POST adds notes, so it exports exactly the seeded 10,000.
  const exported = await measureExport(service, owner);
  endPhase("export");
  for (const route of routes.filter((candidate) => !candidate.read)) results.push(await load(service, baseline, owner, route, apiSetting));
  endPhase("writes");

  const baselinePeak = Math.max(baselineRss.stop(), peakResidentBytes(baseline.pid));
  await stop(baseline);

  seconds = performance.now();
  const small = await registerAndLogin(service.url, "bench_small");
  const large = await registerAndLogin(service.url, "bench_large");
  await seedNotes({ dbFile, userId: small.userId, count: SCALING.small, seed: 3 });
  await seedNotes({ dbFile, userId: large.userId, count: SCALING.large, seed: 4 });
  progress(`seeded ${SCALING.small.toLocaleString("en-US")} + ${SCALING.large.toLocaleString("en-US")} notes in ${elapsed(seconds)}`);
  const scaling = await measureScaling(service, small, large);
  endPhase("scaling");
  phaseRss.stop();

  const servicePeak = Math.max(serviceRss.stop(), peakResidentBytes(service.pid));
  await stop(service);

  // The same routes again with both servers as `npm start` runs them, in fresh data directories
  // seeded alike (a restarted service would index the search backlog of every seeded note meanwhile).
  progress(`routes again with ${startSetting.name}'s runtime settings`);
  const startServiceDir = path.join(workDir, "service-start");
  const startBaselineDir = path.join(workDir, "baseline-start");
  service = await start("service", "service-server.ts", startServiceDir, startSetting.service);
  const startOwner = await registerAndLogin(service.url, "bench");
  const startDbFile = path.join(startServiceDir, "rhizome.db");
  const seeded = await seedNotes({ dbFile: startDbFile, userId: startOwner.userId, count: NOTES, seed: 1 });
  if (seeded.minId !== minId || seeded.maxId !== maxId) throw new Error("the second seeding gave other note ids");
  await copyDatabase(startDbFile, path.join(startBaselineDir, "rhizome.db"));
  baseline = await start("baseline", "baseline-server.ts", startBaselineDir, startSetting.baseline);
  await assertSameAnswers(service, baseline, startOwner, routes.filter((route) => route.read));
  for (const route of routes) results.push(await load(service, baseline, startOwner, route, startSetting));
  await stop(baseline);
  await stop(service);

  const failedRequests = report({ results, exported, scaling, memory: { idle, servicePeak, phasePeaks, baselinePeak } });
  if (failedRequests > 0) process.exitCode = 1;
}

async function start(name: string, entry: string, dataDir: string, environment: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServerProcess(name, entry, { ...environment, DATA_DIR: dataDir });
  running.push(server);
  return server;
}

async function stop(server: ServerProcess): Promise<void> {
  running.splice(running.indexOf(server), 1);
  await server.stop();
}

/** A consistent copy while the (idle) service keeps the file open: checkpoint the WAL fully, then copy. */
async function copyDatabase(source: string, target: string) {
  const client = createClient({ url: `file:${source}` });
  try {
    const [row] = (await client.execute("PRAGMA wal_checkpoint(TRUNCATE)")).rows;
    if (Number(row![0]) !== 0) throw new Error("could not checkpoint the database to copy it (busy)");
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(source, target);
  } finally {
    client.close();
  }
}

/** The comparison only means something if both servers send the same bodies for the same requests. */
async function assertSameAnswers(service: ServerProcess, baseline: ServerProcess, owner: Session, routes: Route[]) {
  for (const route of routes) {
    for (const requestPath of route.paths.slice(0, 3)) {
      const answer = async (server: ServerProcess) => {
        const response = await fetch(server.url + requestPath, { headers: { authorization: `Bearer ${owner.token}` }, keepalive: false });
        return `${response.status} ${await response.text()}`;
      };
      const [fromService, fromBaseline] = [await answer(service), await answer(baseline)];
      if (fromService !== fromBaseline || !fromService.startsWith("200 ")) {
        throw new Error(`service and baseline differ on ${requestPath}:\n  ${fromService.slice(0, 200)}\n  ${fromBaseline.slice(0, 200)}`);
      }
    }
  }
  progress("service and baseline send identical responses on the read routes");
}

/** Drives one route on both servers in alternating slices; see load.ts. */
async function load(service: ServerProcess, baseline: ServerProcess, owner: Session, route: Route, setting: RuntimeSetting): Promise<RouteResult> {
  const [serviceResult, baselineResult] = await runLoad({
    targets: [service, baseline].map((server) => ({ name: server.name, baseUrl: server.url, pid: server.pid, port: server.port })),
    method: route.method,
    paths: route.paths,
    body: route.body,
    token: owner.token,
    connections: CONNECTIONS,
    warmupMs: WARMUP_MS,
    slices: SLICES,
    sliceMs: SLICE_MS,
    settleMs: SETTLE_MS,
  });
  for (const [name, result] of [["service", serviceResult!], ["baseline", baselineResult!]] as const) {
    progress(
      `${name.padEnd(8)} ${setting.name.padEnd(9)} ${route.name.padEnd(20)} ${format(result.requestsPerSecond, 0).padStart(7)} req/s` +
        `  p50 ${format(result.p50Ms, 1)} ms  p99 ${format(result.p99Ms, 1)} ms  cpu ${format(result.serverCpuMsPerRequest * 1000, 0)} µs/req` +
        `  errors ${result.errors}  connections ${result.connections}`,
    );
  }
  return { route, setting: setting.name, service: serviceResult!, baseline: baselineResult! };
}

/** Streams the ZIP of every note, timing it and sampling the service's RSS every 10 ms. */
async function measureExport(service: ServerProcess, owner: Session) {
  const rssBefore = residentBytes(service.pid);
  const rss = watchResidentMemory(service.pid, 10);
  const cpuBefore = cpuMilliseconds(service.pid);
  const startedAt = performance.now();
  const response = await fetch(`${service.url}/api/notes/export`, {
    method: "POST",
    keepalive: false,
    headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" },
    body: "{}",
  });
  if (response.status !== 200 || !response.body) throw new Error(`export: ${response.status} ${await response.text()}`);
  // Meanwhile, one request at a time to /healthz: how long another user waits while an export runs.
  let streaming = true;
  const probeWaits: number[] = [];
  const probing = (async () => {
    while (streaming) {
      const sent = performance.now();
      await (await fetch(`${service.url}/healthz`)).arrayBuffer();
      probeWaits.push(performance.now() - sent);
    }
  })();
  let bytes = 0;
  let tail: Uint8Array = new Uint8Array(0);
  for await (const chunk of response.body) {
    bytes += chunk.byteLength;
    // The ZIP's end record (the last 22 bytes) holds the entry count.
    tail = lastBytes(tail, chunk, 22);
  }
  const seconds = (performance.now() - startedAt) / 1000;
  // The service's CPU time for it (the /healthz probes' share is small): the rate a free core would give.
  const cpuSeconds = (cpuMilliseconds(service.pid) - cpuBefore) / 1000;
  streaming = false;
  await probing;
  const peak = rss.stop();
  const end = new DataView(tail.buffer, tail.byteOffset);
  const entries = tail.byteLength === 22 && end.getUint32(0, true) === 0x06054b50 ? end.getUint16(10, true) : Number.NaN;
  const result = { bytes, seconds, cpuSeconds, entries, rssBefore, growth: Math.max(0, peak - rssBefore), probes: probeWaits.length, longestWaitMs: Math.max(...probeWaits) };
  progress(
    `export   ${format(bytes / 1e6, 1)} MB, ${entries} files in ${format(seconds, 2)} s (service CPU ${format(cpuSeconds, 2)} s); RSS +${format(result.growth / MIB, 1)} MiB; ` +
      `/healthz meanwhile: ${result.probes} answers, longest ${format(result.longestWaitMs, 1)} ms`,
  );
  return result;
}

/** One connection, requests one at a time, alternating the two users so drift affects both alike. */
async function measureScaling(service: ServerProcess, small: Session, large: Session) {
  const series = [
    { name: "list-small", account: small, path: "/api/notes?page=1&size=20" },
    { name: "list-large", account: large, path: "/api/notes?page=1&size=20" },
    { name: "tag-small", account: small, path: `/api/notes?tag=${SCALING.tag}&page=1&size=20` },
    { name: "tag-large", account: large, path: `/api/notes?tag=${SCALING.tag}&page=1&size=20` },
  ];
  const samples = new Map(series.map((entry) => [entry.name, [] as number[]]));
  for (let round = 0; round < SCALING.warmup + SCALING.samples; round++) {
    for (const entry of series) {
      const startedAt = performance.now();
      const response = await fetch(service.url + entry.path, { headers: { authorization: `Bearer ${entry.account.token}` } });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${entry.path}: ${response.status}`);
      if (round >= SCALING.warmup) samples.get(entry.name)!.push(performance.now() - startedAt);
    }
  }
  const p50 = (name: string) => percentile(samples.get(name)!.sort((a, b) => a - b), 0.5);
  return {
    list: { small: p50("list-small"), large: p50("list-large") },
    tag: { small: p50("tag-small"), large: p50("tag-large") },
  };
}

/** The JavaScriptCore (GC) and mimalloc settings among some variables. */
function runtimeSettings(environment: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(environment).filter((entry): entry is [string, string] => /^(BUN_JSC_|MIMALLOC_)/.test(entry[0]) && entry[1] !== undefined),
  );
}

/** RSS figures depend on these, so the report names them. */
function runtimeMemorySettings(): string {
  const settings = Object.entries(runtimeSettings({ ...process.env, ...API_NODE_ENVIRONMENT }));
  return settings.length ? `runtime memory settings (both servers) ${settings.map(([name, value]) => `${name}=${value}`).join(" ")}` : "default runtime memory settings";
}

function report(run: {
  results: RouteResult[];
  exported: Awaited<ReturnType<typeof measureExport>>;
  scaling: Awaited<ReturnType<typeof measureScaling>>;
  memory: { idle: { service: number; baseline: number }; servicePeak: number; phasePeaks: Record<string, number>; baselinePeak: number };
}): number {
  const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
  const cpu = fs.readFileSync("/proc/cpuinfo", "utf8").match(/^model name\s*:\s*(.+)$/m)?.[1] ?? "unknown CPU";
  const header =
    `${NOTES.toLocaleString("en-US")} notes, ${CONNECTIONS} connections, per route and server ${WARMUP_MS / 1000} s warm-up + ` +
    `${SLICES} × ${SLICE_MS / 1000} s recorded, service and baseline alternating; each route with both servers run as ` +
    `\`npm run start:api\` runs the service (${runtimeMemorySettings()}) and as \`npm start\` does (runtime defaults, API and worker in one process)`;
  const machine = `${cpu}, ${os.cpus().length} cores, Bun ${Bun.version}, ${os.platform()} ${os.release()}`;

  console.log(`\nRhizome API benchmark: ${header}\n${machine}`);
  console.log(
    "The load generator shares the cores with the server it drives (service and baseline alike), so req/s\n" +
      "are lower than on a dedicated machine. Server CPU per request does not depend on that contention;\n" +
      "`cpu ratio` is baseline/service CPU per request. Per-layer costs: bun run scripts/bench/layers.ts\n",
  );
  const columns = ["runtime", "route", "service req/s", "p50 ms", "p99 ms", "cpu µs/req", "baseline req/s", "p50 ms", "p99 ms", "cpu µs/req", "ratio", "cpu ratio", "target"];
  const rows = run.results.map(({ route, setting, service, baseline }) => {
    const ratio = service.requestsPerSecond / baseline.requestsPerSecond;
    const target = route.read ? TARGET.readRatio : TARGET.writeRatio;
    return [
      setting,
      route.name,
      format(service.requestsPerSecond, 0),
      format(service.p50Ms, 1),
      format(service.p99Ms, 1),
      format(service.serverCpuMsPerRequest * 1000, 0),
      format(baseline.requestsPerSecond, 0),
      format(baseline.p50Ms, 1),
      format(baseline.p99Ms, 1),
      format(baseline.serverCpuMsPerRequest * 1000, 0),
      format(ratio, 2),
      format(baseline.serverCpuMsPerRequest / service.serverCpuMsPerRequest, 2),
      `≥ ${target} ${verdict(ratio >= target)}`,
    ];
  });
  printTable(columns, rows);

  const failed = run.results.flatMap(({ route, service, baseline }) => [
    ...(service.errors ? [`service ${route.name}: ${service.errors} failed ${JSON.stringify(service.statuses)}`] : []),
    ...(baseline.errors ? [`baseline ${route.name}: ${baseline.errors} failed ${JSON.stringify(baseline.statuses)}`] : []),
  ]);
  const errorCount = run.results.reduce((sum, { service, baseline }) => sum + service.errors + baseline.errors, 0);
  const connections = run.results.flatMap(({ service, baseline }) => [service.connections, baseline.connections]);
  console.log(`\nFailed requests (non-2xx or no response): ${errorCount}${failed.length ? `\n  ${failed.join("\n  ")}` : ""}`);
  console.log(`Established connections per server, mid-slice: ${Math.min(...connections)}–${Math.max(...connections)} (of ${CONNECTIONS})`);

  const { memory, exported } = run;
  const { list, tag } = run.scaling;
  const listRatio = list.large / list.small;
  const tagRatio = tag.large / tag.small;
  const mib = (bytes: number, digits = 1) => `${format(bytes / MIB, digits)} MiB`;
  const phases = Object.entries(memory.phasePeaks).map(([phase, bytes]) => `${phase} ${format(bytes / MIB, 0)}`).join(", ");
  const lines = [
    `Peak service RSS: ${mib(memory.servicePeak)} (target < 150 MiB) ${verdict(memory.servicePeak < TARGET.rssBytes)}; ` +
      `idle ${mib(memory.idle.service)}, phase peaks [${phases}]; baseline idle ${mib(memory.idle.baseline)}, peak ${mib(memory.baselinePeak)}`,
    `List p50, 1 connection, ${SCALING.large.toLocaleString("en-US")} vs ${SCALING.small.toLocaleString("en-US")} notes: ` +
      `${format(list.large, 2)} vs ${format(list.small, 2)} ms = ${format(listRatio, 2)}×; ` +
      `tag page ${format(tag.large, 2)} vs ${format(tag.small, 2)} ms = ${format(tagRatio, 2)}× ` +
      `(target ≤ ${TARGET.scalingRatio}×) ${verdict(listRatio <= TARGET.scalingRatio && tagRatio <= TARGET.scalingRatio)}`,
    `Export of ${NOTES.toLocaleString("en-US")} notes: ${format(exported.bytes / 1e6, 1)} MB (${exported.entries} files) in ${format(exported.seconds, 2)} s = ` +
      `${format(exported.bytes / 1e6 / exported.seconds, 1)} MB/s (target ≥ ${TARGET.exportMBps}) ${verdict(exported.bytes / 1e6 / exported.seconds >= TARGET.exportMBps)}, ` +
      `${format(exported.bytes / 1e6 / exported.cpuSeconds, 1)} MB per second of service CPU; peak RSS growth ${mib(exported.growth)} over ${mib(exported.rssBefore)} ` +
      `(target ≤ 50 MiB) ${verdict(exported.growth <= TARGET.exportGrowthBytes)}; meanwhile /healthz answered ${exported.probes} times, ` +
      `the slowest in ${format(exported.longestWaitMs, 1)} ms`,
  ];
  console.log(`${lines.join("\n")}\nTotal time ${elapsed(started)}`);

  // Markdown the README's performance section can take as it is.
  console.log("\n--- summary for the README ---");
  console.log(`\`bun run bench:api\`, ${new Date().toISOString().slice(0, 10)}: ${machine}. ${header}; load generator on the same cores.\n`);
  console.log("| Runtime | Route | Service req/s | p50 / p99 ms | Baseline req/s | p50 / p99 ms | Ratio | CPU µs/req service / baseline |");
  console.log("|---|---|---:|---:|---:|---:|---:|---:|");
  for (const row of rows) console.log(`| ${row[0]} | ${row[1]} | ${row[2]} | ${row[3]} / ${row[4]} | ${row[6]} | ${row[7]} / ${row[8]} | ${row[10]} | ${row[5]} / ${row[9]} |`);
  console.log(`\n${lines.map((line) => `- ${line}`).join("\n")}`);
  console.log("--- end of summary ---");
  return errorCount;
}

function lastBytes(previous: Uint8Array, chunk: Uint8Array, count: number): Uint8Array {
  if (chunk.byteLength >= count) return chunk.slice(-count);
  const joined = new Uint8Array(previous.byteLength + chunk.byteLength);
  joined.set(previous);
  joined.set(chunk, previous.byteLength);
  return joined.slice(-count);
}

function printTable(columns: string[], rows: string[][]) {
  const widths = columns.map((column, index) => Math.max(column.length, ...rows.map((row) => row[index]!.length)));
  const line = (cells: string[]) => cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!))).join("  ");
  console.log(line(columns));
  console.log(widths.map((width) => "-".repeat(width)).join("  "));
  for (const row of rows) console.log(line(row));
}

function format(value: number, digits: number): string {
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function elapsed(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

function progress(message: string) {
  console.error(`[bench] ${message}`);
}
