import { and, count, desc, eq, sql } from "drizzle-orm";
import { graphBuilds, graphEdges, graphNodes } from "../../db/schema";
import type { Database } from "../../db/client";
import { batchStep, preparedPerDatabase, runBatch } from "../../db/prepared";
import { NotFoundError } from "../errors";
import { extractorIdentity, type ExtractorSettings } from "./create-extractor";
import { extractorName, type BuildStatus } from "./schemas";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const userId = sql.placeholder("userId");

const statements = preparedPerDatabase((db) => ({
  latest: db.select().from(graphBuilds).where(eq(graphBuilds.userId, userId)).orderBy(desc(graphBuilds.id)).limit(1).prepare(),
  one: db.select().from(graphBuilds).where(and(eq(graphBuilds.id, sql.placeholder("buildId")), eq(graphBuilds.userId, userId))).prepare(),
  nodes: db.select({ total: count() }).from(graphNodes).where(eq(graphNodes.userId, userId)).prepare(),
  edges: db.select({ total: count() }).from(graphEdges).where(eq(graphEdges.userId, userId)).prepare(),
}));

/**
 * The user's latest build (or, with `buildId`, that one of theirs — how an agent's task follows
 * the build it started), with the size of the graph readers see now; `idle` before any build.
 * One read batch: the build and the counts come from one snapshot, as a client polls it mid-build.
 */
export async function getBuildStatus({ ctx, buildId }: { ctx: { db: Database; userId: number; graphSettings: ExtractorSettings }; buildId?: number }): Promise<BuildStatus> {
  const { latest, one, nodes: nodeCount, edges: edgeCount } = statements(ctx.db);
  const values = { userId: ctx.userId };
  const buildRead = buildId === undefined ? batchStep(latest, values) : batchStep(one, { ...values, buildId });
  const [[build], [nodes], [edges]] = await runBatch(ctx.db, "read", [buildRead, batchStep(nodeCount, values), batchStep(edgeCount, values)]);
  const graph = { nodes: nodes?.total ?? 0, edges: edges?.total ?? 0 };
  if (!build && buildId !== undefined) throw new NotFoundError(`Graph build ${buildId}`);
  if (!build) {
    const identity = extractorIdentity(ctx.graphSettings);
    return {
      budget_exhausted: false,
      extractor: identity.extractor,
      model: identity.model,
      structured_output: identity.structuredOutput,
      status: "idle",
      progress: 0,
      message: "No graph has been built yet: POST /api/knowledge-graph/build",
      mode: null,
      build_id: null,
      started_at: null,
      finished_at: null,
      notes_total: 0,
      notes_processed: 0,
      ...graph,
      error: null,
      failed_notes: [],
      usage: { llm_calls: 0, input_tokens: 0, output_tokens: 0, estimated: false },
    };
  }
  return {
    status: build.status,
    progress: build.progress,
    message: build.message,
    mode: build.mode,
    build_id: build.id,
    started_at: iso(build.startedAt),
    finished_at: iso(build.finishedAt),
    notes_total: build.notesTotal,
    notes_processed: build.notesProcessed,
    ...graph,
    error: build.error,
    failed_notes: JSON.parse(build.failedNotes) as BuildStatus["failed_notes"],
    budget_exhausted: build.budgetExhausted,
    extractor: extractorName(build.extractor),
    model: build.model,
    structured_output: build.structuredOutput as BuildStatus["structured_output"],
    usage: { llm_calls: build.llmCalls, input_tokens: build.inputTokens, output_tokens: build.outputTokens, estimated: build.usageEstimated },
  };
}
