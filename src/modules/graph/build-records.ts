import { and, count, desc, eq } from "drizzle-orm";
import type { z } from "zod";
import { graphBuilds } from "../../db/schema";
import type { Database } from "../../db/client";
import { NotFoundError } from "../errors";
import { pageOf, type Page } from "../pagination";
import type { GraphDiff } from "./graph-changes";
import { extractorName, type BuildRecord, type BuildRecordDetail, type listBuildsInput } from "./schemas";

type Ctx = { db: Database; userId: number };
type BuildRow = typeof graphBuilds.$inferSelect;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function toBuildRecord(row: BuildRow): BuildRecord {
  return {
    id: row.id,
    mode: row.mode,
    status: row.status,
    started_at: new Date(row.startedAt).toISOString(),
    finished_at: iso(row.finishedAt),
    notes_total: row.notesTotal,
    notes_processed: row.notesProcessed,
    budget_exhausted: row.budgetExhausted,
    extractor: extractorName(row.extractor),
    model: row.model,
    usage: { llm_calls: row.llmCalls, input_tokens: row.inputTokens, output_tokens: row.outputTokens },
    changes: {
      nodes_added: row.nodesAdded,
      nodes_removed: row.nodesRemoved,
      edges_added: row.edgesAdded,
      edges_removed: row.edgesRemoved,
      nodes_merged: row.nodesMerged,
    },
    error: row.error,
  };
}

/** The user's builds, newest first. */
export async function listBuilds({ ctx, input }: { ctx: Ctx; input: z.infer<typeof listBuildsInput> }): Promise<Page<BuildRecord>> {
  const [rows, [total]] = await ctx.db.batch([
    ctx.db
      .select()
      .from(graphBuilds)
      .where(eq(graphBuilds.userId, ctx.userId))
      .orderBy(desc(graphBuilds.id))
      .limit(input.size)
      .offset((input.page - 1) * input.size),
    ctx.db.select({ total: count() }).from(graphBuilds).where(eq(graphBuilds.userId, ctx.userId)),
  ]);
  return pageOf(rows.map(toBuildRecord), total?.total ?? 0, input);
}

/** One build's record with the concepts it added, removed and merged. */
export async function getBuildRecord({ ctx, input }: { ctx: Ctx; input: { id: number } }): Promise<BuildRecordDetail> {
  const [row] = await ctx.db
    .select()
    .from(graphBuilds)
    .where(and(eq(graphBuilds.id, input.id), eq(graphBuilds.userId, ctx.userId)));
  if (!row) throw new NotFoundError(`Graph build ${input.id}`);
  return { ...toBuildRecord(row), diff: JSON.parse(row.diff) as GraphDiff };
}
