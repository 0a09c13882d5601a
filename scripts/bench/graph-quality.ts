// `bun run bench:graph-quality`: the local extractor against the labelled notes in tests/fixtures/graph-eval/,
// by k-fold cross-validation (cross-validate.ts): per fold the parameters the other folds chose, the
// held-out fold's graph scored (recall per language, precision of the 30 heaviest nodes, junk nodes, the
// share of recurring concepts merged into one node, the share of concept pairs sharing a paragraph in two
// or more notes that an edge joins), then the mean and the worst fold, PASS/FAIL of the mean per target.
// BENCH_VERBOSE=1 adds each fold's heaviest nodes and misses.
// `--api`: also the 40 original notes through the service (ROLE=all, GRAPH_EXTRACTOR=local): POST /api/notes,
// a full build, GET /api/knowledge-graph, scored with the shipped defaults. Stops the service and removes its
// temporary directory whatever happens.
import fs from "node:fs";
import path from "node:path";
import { crossValidate, formatCrossValidation, meetsTargetFigures } from "../../tests/fixtures/graph-eval/cross-validate";
import { evalNotes, formatDetails, formatScore, loadEvalSet, meetsTargets, scoreGraph } from "../../tests/fixtures/graph-eval/score";
import { benchWorkDir, startServerProcess, type ServerProcess } from "./server-process";
import { registerAndLogin, type Session } from "./tasks-client";

const POLL_MS = 100;
const BUILD_TIMEOUT_MS = 300_000;

let workDir: string | undefined;
let service: ServerProcess | undefined;

async function api(session: Session, method: string, route: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${session.baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${session.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function crossValidated(): Promise<boolean> {
  const started = performance.now();
  const set = loadEvalSet("all");
  const result = await crossValidate(set);
  const groups = new Set(set.notes.map((note) => note.group)).size;
  console.log(`${set.notes.length} notes in ${groups} groups (${set.notes.filter((note) => note.language === "en").length} English), ${result.folds.length} folds`);
  console.log(formatCrossValidation(result));
  if (process.env.BENCH_VERBOSE) {
    result.folds.forEach((fold, index) => console.log(`\nfold ${index + 1}, tuned:\n${formatDetails(fold.tuned)}`));
  }
  console.log(`(${((performance.now() - started) / 1000).toFixed(1)} s)`);
  return meetsTargetFigures(result.tuned.mean);
}

async function throughApi(): Promise<boolean> {
  workDir = benchWorkDir("rhizome-bench-graph-quality-");
  const environment = { ROLE: "all", DATA_DIR: path.join(workDir, "service"), DATABASE_URL: "", LIBSQL_URL: "", GRAPH_EXTRACTOR: "local" };
  service = await startServerProcess("service", "service-server.ts", environment);
  const session = await registerAndLogin(service.url, "bench_graph_quality");
  const set = loadEvalSet();
  const indexById = new Map<number, number>();
  for (const [index, note] of evalNotes(set).entries()) {
    const created = (await api(session, "POST", "/api/notes", { title: note.title, content: note.content, tags: note.tags })) as { id: number };
    indexById.set(created.id, index);
  }
  const started = performance.now();
  await api(session, "POST", "/api/knowledge-graph/build", { mode: "full" });
  for (;;) {
    const status = (await api(session, "GET", "/api/knowledge-graph/status")) as { status: string; error: string | null };
    if (status.status === "completed") break;
    if (status.status === "failed") throw new Error(`build failed: ${status.error}`);
    if (performance.now() - started > BUILD_TIMEOUT_MS) throw new Error("build timed out");
    await Bun.sleep(POLL_MS);
  }
  const buildMs = performance.now() - started;
  const graph = (await api(session, "GET", "/api/knowledge-graph?limit=5000")) as {
    nodes: { id: number; label: string; aliases?: string[]; weight: number; note_ids: number[] }[];
    edges: { source: number; target: number }[];
  };
  const nodeIndex = new Map(graph.nodes.map((node, index) => [node.id, index]));
  const score = scoreGraph(
    set,
    graph.nodes.map((node) => ({
      label: node.label,
      aliases: node.aliases ?? [],
      weight: node.weight,
      noteIndexes: node.note_ids.map((id) => indexById.get(id)!).filter((index) => index !== undefined),
    })),
    graph.edges.map((edge) => ({ source: nodeIndex.get(edge.source)!, target: nodeIndex.get(edge.target)! })),
  );
  console.log(`\nThrough the API, the ${set.notes.length} original notes in one graph, shipped defaults:`);
  console.log(`${set.notes.length} notes → ${graph.nodes.length} nodes, ${graph.edges.length} edges (build ${(buildMs / 1000).toFixed(1)} s)`);
  console.log(formatScore(score));
  if (process.env.BENCH_VERBOSE) console.log(formatDetails(score));
  return meetsTargets(score);
}

let passed = false;
try {
  passed = await crossValidated();
  if (process.argv.includes("--api")) await throughApi();
} finally {
  await service?.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
}
process.exit(passed ? 0 : 1);
