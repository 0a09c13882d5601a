// `bun run bench:graph`: the knowledge graph end to end. One service process (ROLE=all: API + worker,
// embedded Postgres, libSQL file) extracts with the Anthropic extractor against the fake Messages
// API (tests/support/fake-anthropic.ts, answering after 200 ms) running in this process:
//   1. a full build of 1,000 notes, then an incremental build after editing 10 of them — LLM calls,
//      wall time and efficiency = (calls × 200 ms / GRAPH_LLM_CONCURRENCY) ÷ wall time (target ≥ 0.8);
//   1b. the same full build with the openai extractor, in a second service process, against the
//      Chat Completions stand-in (tests/support/fake-openai.ts, same answers, same 200 ms);
//   2. GET /api/knowledge-graph over HTTP on a graph of 5,000 nodes and 20,000 edges seeded straight
//      into the service's database (target p50 ≤ 100 ms for the default call);
//   3. the local extractor in-process over 10,000 notes (notes/s), once the service has stopped;
//   4. an incremental build after editing 1 note at 1,000 and 10,000 notes (graph-incremental.ts).
// Prints PASS/FAIL per target and a summary block for the README. Stops the service (SIGTERM, so its
// Postgres shuts down) and removes its temporary directory whatever happens.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config";
import { openNotesDatabase } from "../../src/db/client";
import { noteText, type NoteForExtraction } from "../../src/modules/graph/extraction";
import { DEFAULT_MAX_CHUNK_CHARS } from "../../src/modules/graph/extractors/anthropic";
import { buildCorpusStats, createLocalExtractor } from "../../src/modules/graph/extractors/local";
import { getGraph } from "../../src/modules/graph/get-graph";
import { getGraphInput } from "../../src/modules/graph/read-schemas";
import { defaultRespond, startFakeAnthropic, type FakeAnthropic } from "../../tests/support/fake-anthropic";
import { startFakeOpenAi, type FakeOpenAi } from "../../tests/support/fake-openai";
import { seedGraph } from "../../tests/support/graph-seed";
import { draftEdit, draftNotes, type DraftNote } from "./graph-notes";
import { measureIncremental, reportIncremental } from "./graph-incremental";
import { percentile } from "./load";
import { benchWorkDir, cpuMilliseconds, startServerProcess, type ServerProcess } from "./server-process";
import { registerAndLogin, type Session } from "./tasks-client";

const LATENCY_MS = 200;
const NOTES = Number(process.env.BENCH_GRAPH_NOTES ?? 1_000);
const EDITS = 10;
const CREATE_CONNECTIONS = 4;
const POLL_MS = 100;
const BUILD_TIMEOUT_MS = 600_000;
const READ = { nodes: 5_000, edges: 20_000, warmup: 5, runs: Number(process.env.BENCH_GRAPH_READ_RUNS ?? 50), inProcessRuns: 20 };
const LOCAL_NOTES = Number(process.env.BENCH_GRAPH_LOCAL_NOTES ?? 10_000);
/** What the build passes as `existingConcepts` (build-graph.ts's EXISTING_CONCEPTS). */
const EXISTING_CONCEPTS = 200;
const TARGET = { efficiency: 0.8, readP50Ms: 100, wholeGraphP50Ms: 60 };

const now = () => performance.timeOrigin + performance.now();
const started = performance.now();
const workDir = benchWorkDir("rhizome-bench-graph-");
const dataDir = path.join(workDir, "service");
let service: ServerProcess | undefined;
let fake: FakeAnthropic | undefined;
let fakeOpenAi: FakeOpenAi | undefined;
/** The stand-in the current build talks to. */
let llm: { readonly calls: number } | undefined;

const cleanUp = async () => {
  const [runningService, runningFake, runningOpenAi] = [service, fake, fakeOpenAi];
  service = fake = fakeOpenAi = llm = undefined;
  // SIGTERM, then wait: the service drains its worker and stops its embedded Postgres before exiting.
  await runningService?.stop();
  await runningFake?.stop();
  await runningOpenAi?.stop();
  fs.rmSync(workDir, { recursive: true, force: true });
};
// Ctrl-C: the service sees it too and stops itself; what is left is the fake and the work directory.
process.once("SIGINT", async () => {
  await cleanUp();
  process.exit(130);
});

/** When the fake answered each call (client clock), and how many calls it held at that moment. */
const answers: { at: number; inFlight: number }[] = [];

interface BuildStatus {
  status: "idle" | "building" | "completed" | "failed";
  message: string;
  mode: string | null;
  build_id: number | null;
  started_at: string | null;
  finished_at: string | null;
  notes_total: number;
  notes_processed: number;
  nodes: number;
  edges: number;
  error: string | null;
  failed_notes: { note_id: number; error: string }[];
  usage: { llm_calls: number; input_tokens: number; output_tokens: number };
}

interface BuildRun {
  name: string;
  status: BuildStatus;
  /** Client clock, epoch ms. */
  postAt: number;
  observedAt: number;
  finishedAt: number;
  fakeCalls: number;
  /** POST sent → finished_at: the wall time the efficiency is computed on. */
  wallMs: number;
  efficiency: number;
  /** The fake's answers during the build. */
  firstRequestAt: number;
  lastAnswerAt: number;
  meanInFlight: number;
  serviceCpuMs: number;
  fakeCpuMs: number;
  /** First time each phase's message was seen by the poller (client clock). */
  phases: Map<string, number>;
}

interface ReadResult {
  name: string;
  path: string;
  p50: number;
  p99: number;
  mean: number;
  bytes: number;
  nodes: number;
  edges: number;
  inProcessP50: number;
}

interface LocalResult {
  notes: number;
  zhNotes: number;
  megabytes: number;
  corpusMs: number;
  extractMs: number;
  notesPerSecond: number;
  enPerSecond: number;
  zhPerSecond: number;
  concepts: number;
  relations: number;
  distinctNames: number;
  /** What build-graph.ts's `[...known].slice(-200)` costs per note once `known` holds every name. */
  knownCopyMsAtEnd: number;
  knownCopyMsTotal: number;
}

async function main() {
  progress(`work directory ${workDir}`);
  fake = await startFakeAnthropic({
    latencyMs: LATENCY_MS,
    respond: (request) => {
      answers.push({ at: now(), inFlight: fake!.calls - answers.length });
      return defaultRespond(request);
    },
  });
  llm = fake;
  // An outside DATABASE_URL or LIBSQL_URL would point the service elsewhere: empty means unset.
  const environment = {
    ROLE: "all",
    DATA_DIR: dataDir,
    DATABASE_URL: "",
    LIBSQL_URL: "",
    GRAPH_EXTRACTOR: "anthropic",
    ANTHROPIC_API_KEY: "bench",
    ANTHROPIC_BASE_URL: fake.url,
    GRAPH_LLM_CONCURRENCY: process.env.GRAPH_LLM_CONCURRENCY || "4",
  };
  const config = loadConfig({ ...process.env, ...environment });
  const concurrency = config.graph.llmConcurrency;
  service = await startServerProcess("service", "service-server.ts", environment);
  progress(`service pid ${service.pid} on ${service.url}; fake Messages API on ${fake.url} (latency ${LATENCY_MS} ms)`);
  console.log(`GRAPH_LLM_CONCURRENCY=${concurrency}, model ${config.graph.anthropic.model ?? "(default)"}, fake latency ${LATENCY_MS} ms`);

  // 1. Builds.
  const session = await registerAndLogin(service.url, "bench_graph");
  const drafts = draftNotes(NOTES, 11);
  let at = now();
  const noteIds = await createNotes(session, drafts);
  const longest = Math.max(...drafts.map((note) => noteText(note).length));
  if (longest > DEFAULT_MAX_CHUNK_CHARS) throw new Error(`a note of ${longest} characters would take more than one call`);
  const bytes = drafts.reduce((sum, note) => sum + Buffer.byteLength(noteText(note)), 0);
  progress(`created ${noteIds.length} notes through POST /api/notes in ${((now() - at) / 1000).toFixed(1)} s`);
  console.log(
    `\n== 1. Builds with the fake Messages API (${LATENCY_MS} ms per call) ==\n` +
      `${NOTES} notes (${drafts.filter((note) => note.language === "zh").length} Chinese), ${kb(bytes / NOTES)} on average (max ${kb(
        Math.max(...drafts.map((note) => Buffer.byteLength(noteText(note)))),
      )}): one call each`,
  );

  const full = await runBuild(session, "full", "full", concurrency);
  reportBuild(full, concurrency, NOTES);

  const edited = Array.from({ length: EDITS }, (_, index) => noteIds[Math.floor(((index + 0.5) * noteIds.length) / EDITS)]!);
  for (const [index, id] of edited.entries()) {
    const draft = drafts[noteIds.indexOf(id)]!;
    await api(session, "PUT", `/api/notes/${id}`, { content: draft.content + draftEdit(index + 1) }, 200);
  }
  const incremental = await runBuild(session, "incremental", `incremental after editing ${EDITS} notes`, concurrency);
  reportBuild(incremental, concurrency, EDITS);

  // 2. Reads.
  const reads = await measureReads(service);

  await service.stop();
  await fake.stop();
  service = fake = undefined;

  // 1b. The openai extractor, same notes, same answers, same latency.
  const openai = await measureOpenAiBuild(drafts, concurrency);

  const pid = service!.pid;
  const stopStarted = performance.now();
  await cleanUp();
  progress(`service (pid ${pid}) and its Postgres stopped in ${elapsed(stopStarted)}; fakes stopped; work directory removed`);

  // 3. The local extractor, on an idle machine.
  const local = await measureLocalExtractor();

  // 4. An incremental build's cost after editing one note, at 1,000 and 10,000 notes.
  const edited1 = reportIncremental(await measureIncremental(progress));
  console.log(edited1.text);

  return summary({ full, incremental, openai, reads, local, concurrency }) || (edited1.pass ? 0 : 1);
}

/** A second service with GRAPH_EXTRACTOR=openai against the Chat Completions stand-in: a full build of the same notes. */
async function measureOpenAiBuild(drafts: DraftNote[], concurrency: number): Promise<BuildRun> {
  fakeOpenAi = await startFakeOpenAi({
    latencyMs: LATENCY_MS,
    respond: (request) => {
      answers.push({ at: now(), inFlight: fakeOpenAi!.calls - answers.length });
      return defaultRespond(request as never);
    },
  });
  answers.length = 0;
  llm = fakeOpenAi;
  const environment = {
    ROLE: "all",
    DATA_DIR: path.join(workDir, "service-openai"),
    DATABASE_URL: "",
    LIBSQL_URL: "",
    GRAPH_EXTRACTOR: "openai",
    OPENAI_BASE_URL: fakeOpenAi.url,
    OPENAI_MODEL: "bench-model",
    ANTHROPIC_API_KEY: "",
    GRAPH_LLM_CONCURRENCY: String(concurrency),
  };
  service = await startServerProcess("service-openai", "service-server.ts", environment);
  progress(`openai service pid ${service.pid} on ${service.url}; Chat Completions stand-in on ${fakeOpenAi.url} (latency ${LATENCY_MS} ms)`);
  const session = await registerAndLogin(service.url, "bench_graph_openai");
  await createNotes(session, drafts);
  console.log(`\n== 1b. The same full build with the openai extractor against the Chat Completions stand-in (${LATENCY_MS} ms per call) ==`);
  const run = await runBuild(session, "full", "openai full", concurrency);
  reportBuild(run, concurrency, drafts.length);
  return run;
}

/** POST /api/notes from a few concurrent loops; returns the ids in draft order. */
async function createNotes(session: Session, drafts: DraftNote[]): Promise<number[]> {
  const ids: number[] = new Array(drafts.length);
  let next = 0;
  const loop = async () => {
    for (let index = next++; index < drafts.length; index = next++) {
      const { title, content, tags } = drafts[index]!;
      ids[index] = ((await api(session, "POST", "/api/notes", { title, content, tags }, 201)) as { id: number }).id;
    }
  };
  await Promise.all(Array.from({ length: CREATE_CONNECTIONS }, loop));
  return ids;
}

/** POST /api/knowledge-graph/build, then GET …/status every 100 ms until it is over. */
async function runBuild(session: Session, mode: "full" | "incremental", name: string, concurrency: number): Promise<BuildRun> {
  progress(`${name} build: started`);
  const callsBefore = llm!.calls;
  const answersBefore = answers.length;
  const cpuBefore = cpuMilliseconds(service!.pid);
  const fakeCpuBefore = process.cpuUsage();
  const phases = new Map<string, number>();
  const postAt = now();
  const accepted = (await api(session, "POST", "/api/knowledge-graph/build", { mode }, 202)) as BuildStatus;
  const deadline = Date.now() + BUILD_TIMEOUT_MS;
  let status = accepted;
  let lastProgress = 0;
  for (;;) {
    const phase = status.message.replace(/:.*$/, "");
    if (!phases.has(phase)) phases.set(phase, now());
    if (status.status !== "building") break;
    if (Date.now() > deadline) throw new Error(`${name} build still running after ${BUILD_TIMEOUT_MS / 1000} s: ${status.message}`);
    if (Date.now() - lastProgress > 10_000) {
      progress(`${name} build: ${status.message}`);
      lastProgress = Date.now();
    }
    await Bun.sleep(POLL_MS);
    status = (await api(session, "GET", "/api/knowledge-graph/status", undefined, 200)) as BuildStatus;
  }
  const observedAt = now();
  const serviceCpuMs = cpuMilliseconds(service!.pid) - cpuBefore;
  const fakeCpu = process.cpuUsage(fakeCpuBefore);
  if (status.build_id !== accepted.build_id) throw new Error(`status shows build ${status.build_id}, not ${accepted.build_id}`);
  const finishedAt = Date.parse(status.finished_at ?? "") || observedAt;
  const fakeCalls = llm!.calls - callsBefore;
  const during = answers.slice(answersBefore);
  const wallMs = finishedAt - postAt;
  return {
    name,
    status,
    postAt,
    observedAt,
    finishedAt,
    fakeCalls,
    wallMs,
    efficiency: (fakeCalls * LATENCY_MS) / concurrency / wallMs,
    // The fake sleeps LATENCY_MS between reading a request and answering it.
    firstRequestAt: during.length ? during[0]!.at - LATENCY_MS : Number.NaN,
    lastAnswerAt: during.length ? during.at(-1)!.at : Number.NaN,
    meanInFlight: during.length ? during.reduce((sum, answer) => sum + answer.inFlight, 0) / during.length : Number.NaN,
    serviceCpuMs,
    fakeCpuMs: (fakeCpu.user + fakeCpu.system) / 1000,
    phases,
  };
}

function reportBuild(run: BuildRun, concurrency: number, expectedCalls: number) {
  const { status } = run;
  const ideal = (run.fakeCalls * LATENCY_MS) / concurrency;
  const lanes = Math.ceil(run.fakeCalls / concurrency) * LATENCY_MS;
  const extractionMs = run.lastAnswerAt - run.firstRequestAt;
  const perCallOverhead = run.fakeCalls > 0 ? (extractionMs * concurrency) / run.fakeCalls - LATENCY_MS : Number.NaN;
  const phase = (name: string) => run.phases.get(name);
  const writingSeen = phase("Writing the graph");
  const lines = [
    `\n-- ${run.name} build (build ${status.build_id}) --`,
    `result          ${status.status}: ${status.message}; notes_total ${status.notes_total}, failed notes ${status.failed_notes.length}`,
    `LLM calls       ${run.fakeCalls} received by the fake, ${status.usage.llm_calls} in status.usage.llm_calls ` +
      `(${run.fakeCalls === status.usage.llm_calls ? "agree" : "DISAGREE"}; expected ${expectedCalls}); ` +
      `tokens in ${format(status.usage.input_tokens, 0)}, out ${format(status.usage.output_tokens, 0)}`,
    `wall time       ${seconds(run.wallMs)} = POST sent (client clock) → finished_at (service clock, same machine); ` +
      `the poller saw it completed ${format(run.observedAt - run.finishedAt, 0)} ms later`,
    `efficiency      ${format(run.efficiency, 3)} = ${run.fakeCalls} × ${LATENCY_MS} ms / ${concurrency} = ${seconds(ideal)} ideal ÷ ${seconds(run.wallMs)}` +
      (run.fakeCalls % concurrency ? ` (whole rounds of ${concurrency} lanes would need ${seconds(lanes)})` : ""),
    `where it goes   POST → first LLM request ${ms(run.firstRequestAt - run.postAt)} (queue pick-up, reading notes and saved extractions); ` +
      `first request → last answer ${seconds(extractionMs)} (${format((run.fakeCalls * LATENCY_MS) / concurrency / extractionMs, 3)} of ideal; ` +
      `${format(run.meanInFlight, 2)} calls in flight on average at each answer; ≈${ms(perCallOverhead)} between an answer and the lane's next request); ` +
      `last answer → finished_at ${ms(run.finishedAt - run.lastAnswerAt)} (saving the last extraction, writing the graph: the whole of it for a full build, the changed notes' share for an incremental one` +
      (writingSeen ? `; "Writing the graph" first seen ${ms(writingSeen - run.postAt)} after the POST` : "") +
      `)`,
    `CPU             service process ${format(run.serviceCpuMs / 1000, 2)} s (${format(run.serviceCpuMs / Math.max(1, run.fakeCalls), 1)} ms per call); ` +
      `this process (fake API + poller) ${format(run.fakeCpuMs / 1000, 2)} s`,
  ];
  console.log(lines.join("\n"));
}

async function measureReads(server: ServerProcess): Promise<ReadResult[]> {
  const session = await registerAndLogin(server.url, "bench_graph_read");
  const database = await openNotesDatabase({ url: `file:${path.join(dataDir, "rhizome.db")}` });
  try {
    let at = now();
    const seeded = await seedGraph(database.db, session.userId, { nodes: READ.nodes, edges: READ.edges, seed: 1 });
    progress(`seeded ${READ.nodes} nodes, ${seeded.edges} edges, ${seeded.mentions} mentions, ${seeded.noteIds.length} notes in ${((now() - at) / 1000).toFixed(1)} s`);
    const status = (await api(session, "GET", "/api/knowledge-graph/status", undefined, 200)) as BuildStatus;
    if (status.nodes !== READ.nodes || status.edges !== READ.edges) throw new Error(`seeded graph is ${status.nodes} nodes / ${status.edges} edges`);
    const totals = await database.client.execute("select (select count(*) from graph_nodes), (select count(*) from graph_edges)");
    const [allNodes, allEdges] = [Number(totals.rows[0]![0]), Number(totals.rows[0]![1])];
    console.log(
      `\n== 2. GET /api/knowledge-graph on ${format(status.nodes, 0)} nodes and ${format(status.edges, 0)} edges ==\n` +
        `seeded with seedGraph into the service's libSQL file beside the build user's graph (tables hold ${format(allNodes, 0)} nodes, ${format(allEdges, 0)} edges); one connection, sequential, ${READ.warmup} warm-up + ${READ.runs} timed requests each, time to the last body byte`,
    );
    const middle = seeded.nodeIds[Math.floor(seeded.nodeIds.length / 2)]!;
    const calls: { name: string; query: Record<string, number> }[] = [
      { name: "default (limit=500)", query: {} },
      { name: "limit=5000", query: { limit: 5000 } },
      { name: "node=<mid-weight>&depth=2", query: { node: middle, depth: 2 } },
      { name: "node=<heaviest>&depth=2", query: { node: seeded.nodeIds[0]!, depth: 2 } },
    ];
    const results: ReadResult[] = [];
    for (const call of calls) {
      const search = new URLSearchParams(Object.entries(call.query).map(([key, value]) => [key, String(value)])).toString();
      const url = `${session.baseUrl}/api/knowledge-graph${search ? `?${search}` : ""}`;
      const times: number[] = [];
      let body = "";
      for (let run = 0; run < READ.warmup + READ.runs; run++) {
        const sent = performance.now();
        const response = await fetch(url, { headers: { authorization: `Bearer ${session.token}` } });
        body = await response.text();
        if (response.status !== 200) throw new Error(`GET ${url}: ${response.status} ${body.slice(0, 200)}`);
        if (run >= READ.warmup) times.push(performance.now() - sent);
      }
      const graph = JSON.parse(body) as { stats: { nodes: number; edges: number } };
      // The same call in this process, on its own connection to the file: the database and the business function alone.
      const ctx = { db: database.db, userId: session.userId };
      const input = getGraphInput.parse(call.query);
      const inProcess: number[] = [];
      for (let run = 0; run < READ.warmup + READ.inProcessRuns; run++) {
        const sent = performance.now();
        await getGraph({ ctx, input });
        if (run >= READ.warmup) inProcess.push(performance.now() - sent);
      }
      times.sort((a, b) => a - b);
      inProcess.sort((a, b) => a - b);
      const result: ReadResult = {
        name: call.name,
        path: `/api/knowledge-graph${search ? `?${search}` : ""}`,
        p50: percentile(times, 0.5),
        p99: percentile(times, 0.99),
        mean: times.reduce((sum, time) => sum + time, 0) / times.length,
        bytes: Buffer.byteLength(body),
        nodes: graph.stats.nodes,
        edges: graph.stats.edges,
        inProcessP50: percentile(inProcess, 0.5),
      };
      results.push(result);
      console.log(
        `${call.name.padEnd(28)} p50 ${ms(result.p50).padStart(7)}  p99 ${ms(result.p99).padStart(7)}  ${kb(result.bytes).padStart(8)}  ` +
          `${format(result.nodes, 0)} nodes, ${format(result.edges, 0)} edges;  getGraph in-process p50 ${ms(result.inProcessP50)} ` +
          `(HTTP, output validation and serialisation ≈ ${ms(result.p50 - result.inProcessP50)})`,
      );
    }
    return results;
  } finally {
    database.close();
  }
}

async function measureLocalExtractor(): Promise<LocalResult> {
  const drafts = draftNotes(LOCAL_NOTES, 23);
  const notes: NoteForExtraction[] = drafts.map((draft, index) => ({ id: index + 1, title: draft.title, content: draft.content, tags: draft.tags }));
  const megabytes = notes.reduce((sum, note) => sum + Buffer.byteLength(noteText(note)), 0) / 1024 / 1024;
  progress(`local extractor: ${LOCAL_NOTES} notes generated`);

  let at = performance.now();
  const corpus = await buildCorpusStats(notes);
  const corpusMs = performance.now() - at;
  const extractor = createLocalExtractor(corpus);
  // As build-graph.ts calls it: one note at a time, `existingConcepts` the last 200 names found so far
  // (kept here in an array; the build copies its whole Set each time, timed separately below).
  const known = new Set<string>();
  const order: string[] = [];
  const spent = { en: 0, zh: 0 };
  let concepts = 0;
  let relations = 0;
  at = performance.now();
  for (const [index, note] of notes.entries()) {
    const existingConcepts = order.slice(-EXISTING_CONCEPTS);
    const noteStarted = performance.now();
    const extraction = await extractor.extract(note, { existingConcepts });
    spent[drafts[index]!.language] += performance.now() - noteStarted;
    concepts += extraction.concepts.length;
    relations += extraction.relations.length;
    for (const concept of extraction.concepts) {
      if (!known.has(concept.name)) {
        known.add(concept.name);
        order.push(concept.name);
      }
    }
  }
  const extractMs = performance.now() - at;
  const zhNotes = drafts.filter((draft) => draft.language === "zh").length;

  // build-graph.ts passes `[...known].slice(-200)`: a copy of the whole Set per note.
  const copies: number[] = [];
  for (let run = 0; run < 20; run++) {
    const copyStarted = performance.now();
    [...known].slice(-EXISTING_CONCEPTS);
    copies.push(performance.now() - copyStarted);
  }
  copies.sort((a, b) => a - b);
  const knownCopyMsAtEnd = percentile(copies, 0.5);

  const result: LocalResult = {
    notes: LOCAL_NOTES,
    zhNotes,
    megabytes,
    corpusMs,
    extractMs,
    notesPerSecond: LOCAL_NOTES / ((corpusMs + extractMs) / 1000),
    enPerSecond: (LOCAL_NOTES - zhNotes) / (spent.en / 1000),
    zhPerSecond: zhNotes / (spent.zh / 1000),
    concepts,
    relations,
    distinctNames: known.size,
    knownCopyMsAtEnd,
    // The Set grows roughly linearly over the build, so the copies cost about half the final one on average.
    knownCopyMsTotal: (knownCopyMsAtEnd * LOCAL_NOTES) / 2,
  };
  console.log(
    `\n== 3. Local extractor, in-process, one note at a time (as a build runs it) ==\n` +
      `${format(LOCAL_NOTES, 0)} notes (${format(zhNotes, 0)} Chinese), ${format(megabytes, 1)} MB of text\n` +
      `buildCorpusStats   ${ms(corpusMs)} (${format(LOCAL_NOTES / (corpusMs / 1000), 0)} notes/s)\n` +
      `extract            ${seconds(extractMs)} = ${format(LOCAL_NOTES / (extractMs / 1000), 0)} notes/s ` +
      `(English ${format(result.enPerSecond, 0)} notes/s, Chinese ${format(result.zhPerSecond, 0)} notes/s); ` +
      `${format(concepts / LOCAL_NOTES, 1)} concepts and ${format(relations / LOCAL_NOTES, 1)} relations per note, ${format(known.size, 0)} distinct names\n` +
      `both               ${seconds(corpusMs + extractMs)} = ${format(result.notesPerSecond, 0)} notes/s\n` +
      `build-graph.ts's [...known].slice(-${EXISTING_CONCEPTS}) per note: ${ms(knownCopyMsAtEnd)} at ${format(known.size, 0)} names ` +
      `(≈${seconds(result.knownCopyMsTotal)} over a ${format(LOCAL_NOTES, 0)}-note build; not included above)`,
  );
  return result;
}

function summary(figures: { full: BuildRun; incremental: BuildRun; openai: BuildRun; reads: ReadResult[]; local: LocalResult; concurrency: number }): number {
  const { full, incremental, openai, reads, local, concurrency } = figures;
  const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
  const [defaultRead, largeRead, neighbourhood] = reads;
  const correctness = [
    full.status.status === "completed" && full.status.failed_notes.length === 0 && full.fakeCalls === NOTES,
    full.fakeCalls === full.status.usage.llm_calls,
    incremental.status.status === "completed" && incremental.status.failed_notes.length === 0 && incremental.fakeCalls === EDITS,
    incremental.fakeCalls === incremental.status.usage.llm_calls,
    openai.status.status === "completed" && openai.status.failed_notes.length === 0 && openai.fakeCalls === NOTES,
    openai.fakeCalls === openai.status.usage.llm_calls,
  ];
  const cpu = fs.readFileSync("/proc/cpuinfo", "utf8").match(/^model name\s*:\s*(.+)$/m)?.[1] ?? "unknown CPU";
  const machine = `${cpu}, ${os.cpus().length} cores, Bun ${Bun.version}, ${os.platform()} ${os.release()}`;
  const checks = [
    `Full build efficiency (${NOTES} notes): ${format(full.efficiency, 3)} (target ≥ ${TARGET.efficiency}) ${verdict(full.efficiency >= TARGET.efficiency)}`,
    `openai full build efficiency (${NOTES} notes, Chat Completions stand-in): ${format(openai.efficiency, 3)} (target ≥ ${TARGET.efficiency}) ` +
      `${verdict(openai.efficiency >= TARGET.efficiency)}; ${format(openai.efficiency / full.efficiency, 3)}× the anthropic extractor's in this run`,
    `Incremental build efficiency (${EDITS} notes, no target): ${format(incremental.efficiency, 3)} — ${incremental.fakeCalls} calls over ${concurrency} lanes ` +
      `are ${ms((incremental.fakeCalls * LATENCY_MS) / concurrency)} of ideal work in ${seconds(incremental.wallMs)}; the fixed per-build cost ` +
      `(pick-up and reading ${ms(incremental.firstRequestAt - incremental.postAt)}, writing the graph (the whole of it for a full build, the changed notes' share for an incremental one) from ${NOTES} notes' extractions ${ms(
        incremental.finishedAt - incremental.lastAnswerAt,
      )}) dominates`,
    `LLM calls agree (fake's counter = status.usage.llm_calls; full ${full.fakeCalls}/${full.status.usage.llm_calls}, ` +
      `incremental ${incremental.fakeCalls}/${incremental.status.usage.llm_calls}, openai full ${openai.fakeCalls}/${openai.status.usage.llm_calls}, expected ${NOTES}, ${EDITS} and ${NOTES}) ${verdict(correctness.every(Boolean))}`,
    `GET /api/knowledge-graph p50, the contract's default call (limit=500) on ${format(READ.nodes, 0)} nodes / ${format(READ.edges, 0)} edges: ` +
      `${ms(defaultRead!.p50)} (target ≤ ${TARGET.readP50Ms} ms) ${verdict(defaultRead!.p50 <= TARGET.readP50Ms)}`,
    `GET /api/knowledge-graph?limit=5000 p50, the whole graph (issue 18): ${ms(largeRead!.p50)} (target ≤ ${TARGET.wholeGraphP50Ms} ms) ` +
      `${verdict(largeRead!.p50 <= TARGET.wholeGraphP50Ms)}; p99 ${ms(largeRead!.p99)}, ${kb(largeRead!.bytes)}; getGraph alone in-process p50 ${ms(largeRead!.inProcessP50)}; ` +
      `depth-2 neighbourhood p50 ${ms(neighbourhood!.p50)}`,
    `Local extractor: ${format(local.notesPerSecond, 0)} notes/s on ${format(local.notes, 0)} notes including corpus stats ` +
      `(extract alone ${format(local.notes / (local.extractMs / 1000), 0)} notes/s; no target)`,
  ];
  console.log(`\nRhizome knowledge-graph benchmark\n${machine}`);
  console.log(`${checks.join("\n")}\nTotal time ${elapsed(started)}`);

  console.log("\n--- summary for the README ---");
  console.log(
    `\`bun run bench:graph\`, ${new Date().toISOString().slice(0, 10)}: ${machine}. One service process (ROLE=all, embedded Postgres, ` +
      `libSQL file), GRAPH_LLM_CONCURRENCY=${concurrency}, the fake Messages API (tests/support/fake-anthropic.ts) answering after ` +
      `${LATENCY_MS} ms; notes of ~1–2 KB with [[wikilinks]] and names, one in eight Chinese. Wall time is POST → finished_at; ` +
      `efficiency = (calls × ${LATENCY_MS} ms / ${concurrency}) ÷ wall time.\n`,
  );
  console.log("| Build | LLM calls (fake / usage) | Wall time | Ideal | Efficiency | First call after | Graph write after last answer |");
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const run of [full, incremental, openai]) {
    console.log(
      `| ${run.name} | ${run.fakeCalls} / ${run.status.usage.llm_calls} | ${seconds(run.wallMs)} | ${seconds((run.fakeCalls * LATENCY_MS) / concurrency)} | ` +
        `${format(run.efficiency, 2)} | ${ms(run.firstRequestAt - run.postAt)} | ${ms(run.finishedAt - run.lastAnswerAt)} |`,
    );
  }
  console.log(`\n| GET /api/knowledge-graph (${format(READ.nodes, 0)} nodes, ${format(READ.edges, 0)} edges) | Returns | p50 | p99 | Response |`);
  console.log("|---|---:|---:|---:|---:|");
  for (const read of reads) {
    console.log(`| \`${read.name}\` | ${format(read.nodes, 0)} nodes, ${format(read.edges, 0)} edges | ${ms(read.p50)} | ${ms(read.p99)} | ${kb(read.bytes)} |`);
  }
  console.log(
    `\nLocal extractor, ${format(local.notes, 0)} notes (${format(local.megabytes, 1)} MB, ${format(local.zhNotes, 0)} Chinese): ` +
      `buildCorpusStats ${seconds(local.corpusMs)}, extraction ${seconds(local.extractMs)} → ${format(local.notesPerSecond, 0)} notes/s overall ` +
      `(${format(local.notes / (local.extractMs / 1000), 0)} notes/s extraction alone).`,
  );
  console.log(`\n${checks.map((line) => `- ${line.trim()}`).join("\n")}`);
  console.log("--- end of summary ---");
  return correctness.every(Boolean) ? 0 : 1;
}

/** One JSON request; throws unless the status is `expected`. */
async function api(session: Session, method: string, pathname: string, body: unknown, expected: number): Promise<unknown> {
  const response = await fetch(`${session.baseUrl}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${session.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${method} ${pathname}: ${response.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

function ms(value: number): string {
  return Number.isFinite(value) ? `${format(value, value < 10 ? 1 : 0)} ms` : "n/a";
}

function seconds(valueMs: number): string {
  return Number.isFinite(valueMs) ? `${format(valueMs / 1000, 2)} s` : "n/a";
}

function kb(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${format(bytes / 1024 / 1024, 1)} MB` : `${format(bytes / 1024, 1)} KB`;
}

function format(value: number, digits: number): string {
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function elapsed(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

function progress(message: string) {
  console.error(`[bench:graph] ${message}`);
}

try {
  process.exitCode = await main();
} finally {
  await cleanUp();
}
