// `bun run scripts/bench/graph-read.ts [nodes] [edges]`: latency of the knowledge-graph reads on a
// synthetic graph (default 5,000 nodes / 20,000 edges) in a temporary libSQL file, beside another
// user's graph of the same size. Times the business functions (no HTTP, no output validation),
// then, for reference, what tRPC's `.output()` parse (Zod's compiled parser) and JSON.stringify add to the largest call.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openNotesDatabase } from "../../src/db/client";
import { computeGraphMetrics } from "../../src/modules/graph/graph-metrics";
import { getGraph } from "../../src/modules/graph/get-graph";
import { getGraphNode } from "../../src/modules/graph/get-graph-node";
import { getGraphInput, graphSchema } from "../../src/modules/graph/read-schemas";
import { insertUser, seedGraph } from "../../tests/support/graph-seed";

// `var`s and function declarations: `main` runs from a top-level await above later `const`s.
const NODES = Number(process.argv[2] ?? 5000);
const EDGES = Number(process.argv[3] ?? 20_000);
const WARMUP = 5;
const RUNS = 50;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-graph-read-"));
try {
  await main();
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}

async function main() {
  const database = await openNotesDatabase({ url: `file:${path.join(dataDir, "rhizome.db")}` });
  try {
    const other = await insertUser(database.db, "other");
    await seedGraph(database.db, other, { nodes: NODES, edges: EDGES, seed: 2 });
    const userId = await insertUser(database.db, "bench");
    let started = performance.now();
    const seeded = await seedGraph(database.db, userId, { nodes: NODES, edges: EDGES, seed: 1 });
    console.log(
      `seeded ${NODES} nodes, ${seeded.edges} edges, ${seeded.mentions} mentions, ${seeded.noteIds.length} notes, ` +
        `${seeded.communities} communities in ${(performance.now() - started).toFixed(0)} ms (x2 users)`,
    );

    const ctx = { db: database.db, userId };
    // A mid-weight node: its depth-2 neighbourhood is a few hundred nodes, not the whole graph.
    const middle = seeded.nodeIds[Math.floor(seeded.nodeIds.length / 2)]!;
    const calls: [string, () => Promise<unknown>][] = [
      ["getGraph default (limit 500)", () => getGraph({ ctx, input: getGraphInput.parse({}) })],
      [`getGraph limit=${Math.min(5000, NODES)}`, () => getGraph({ ctx, input: getGraphInput.parse({ limit: Math.min(5000, NODES) }) })],
      ["getGraph node depth=2 (mid-weight)", () => getGraph({ ctx, input: getGraphInput.parse({ node: middle, depth: 2 }) })],
      ["getGraph node depth=2 (heaviest)", () => getGraph({ ctx, input: getGraphInput.parse({ node: seeded.nodeIds[0], depth: 2 }) })],
      ["getGraphNode (heaviest)", () => getGraphNode({ ctx, input: { id: seeded.nodeIds[0]! } })],
      ["getGraphNode (mid-weight)", () => getGraphNode({ ctx, input: { id: middle } })],
    ];
    for (const [name, call] of calls) {
      for (let i = 0; i < WARMUP; i++) await call();
      const times: number[] = [];
      let result: unknown;
      for (let i = 0; i < RUNS; i++) {
        started = performance.now();
        result = await call();
        times.push(performance.now() - started);
      }
      const size = Buffer.byteLength(JSON.stringify(result));
      const shape = result as { stats?: { nodes: number; edges: number }; neighbours?: unknown[]; notes?: unknown[] };
      const counts = shape.stats ? `${shape.stats.nodes} nodes, ${shape.stats.edges} edges` : `${shape.neighbours?.length} neighbours, ${shape.notes?.length} notes`;
      console.log(`${name.padEnd(38)} p50 ${ms(percentile(times, 0.5))}  p99 ${ms(percentile(times, 0.99))}  JSON ${kb(size)}  (${counts})`);
    }

    const largest = await getGraph({ ctx, input: getGraphInput.parse({ limit: 5000 }) });
    const parse = timeRuns(() => graphSchema.parse(largest));
    const stringify = timeRuns(() => JSON.stringify(largest));
    console.log(`  + output schema parse, compiled (limit=5000) p50 ${ms(percentile(parse, 0.5))}`);
    console.log(`  + JSON.stringify (limit=5000)            p50 ${ms(percentile(stringify, 0.5))}`);

    const edges = (await getGraph({ ctx, input: getGraphInput.parse({ limit: 5000 }) })).edges.map((edge) => ({
      sourceId: edge.source,
      targetId: edge.target,
      weight: edge.weight,
    }));
    const nodeIds = largest.nodes.map((node) => node.id);
    const metrics = timeRuns(() => computeGraphMetrics(nodeIds, edges), 5);
    console.log(`computeGraphMetrics (${nodeIds.length}/${edges.length})    p50 ${ms(percentile(metrics, 0.5))}  max ${ms(Math.max(...metrics))}`);
  } finally {
    database.close();
  }
}

function timeRuns(run: () => unknown, runs = 20): number[] {
  run();
  return Array.from({ length: runs }, () => {
    const started = performance.now();
    run();
    return performance.now() - started;
  });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function ms(value: number): string {
  return `${value.toFixed(1).padStart(6)} ms`;
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(0).padStart(5)} KB`;
}
