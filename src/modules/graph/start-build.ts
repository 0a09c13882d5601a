import { and, eq } from "drizzle-orm";
import { graphBuilds } from "../../db/schema";
import type { Database } from "../../db/client";
import type { ChangePublisher } from "../events/change";
import { isConstraintViolation } from "../../db/errors";
import { log } from "../../log";
import { ConflictError, QueueUnavailableError } from "../errors";
import { extractorIdentity, type ExtractorSettings } from "./create-extractor";
import { estimateBuild } from "./estimate-build";
import { getBuildStatus } from "./get-build-status";
import type { GraphQueue } from "./graph-queue";
import type { BuildEstimate, BuildInput, BuildStatus } from "./schemas";

const ALREADY_BUILDING = "A graph build is already queued or running; follow it at GET /api/knowledge-graph/status";
const PREVIOUS_STILL_FINISHING = "The previous graph build is still finishing; start again in a few seconds";

/**
 * Records a build and queues its job (one per user, keyed `graph:<userId>`). A partial unique
 * index allows one `building` row per user, so two concurrent requests cannot both start one.
 * Without a job the build row is deleted again, so it neither blocks the next build nor shows
 * as a failure of one that never started (CONTRACT "Errors": a 503 when the queue is down).
 * A dry run only estimates (see estimateBuild). The caps travel with the build row; a request
 * without `max_llm_calls` gets GRAPH_MAX_LLM_CALLS when the build runs.
 */
export async function startGraphBuild({
  ctx,
  input,
}: {
  ctx: { db: Database; userId: number; graphQueue: GraphQueue; changes: ChangePublisher; graphSettings: ExtractorSettings };
  input: BuildInput;
}): Promise<BuildStatus | BuildEstimate> {
  if (input.dry_run) return estimateBuild({ ctx, input });
  const now = Date.now();
  const identity = extractorIdentity(ctx.graphSettings);
  let build: typeof graphBuilds.$inferSelect | undefined;
  try {
    [build] = await ctx.db
      .insert(graphBuilds)
      .values({
        userId: ctx.userId,
        mode: input.mode,
        status: "building",
        message: "Queued",
        startedAt: now,
        updatedAt: now,
        extractor: identity.extractor,
        model: identity.model,
        structuredOutput: identity.structuredOutput,
        maxLlmCalls: input.max_llm_calls ?? null,
        maxInputTokens: input.max_input_tokens ?? null,
      })
      .returning();
  } catch (error) {
    if (isConstraintViolation(error)) throw new ConflictError(ALREADY_BUILDING);
    throw error;
  }
  const unrecord = () => ctx.db.delete(graphBuilds).where(and(eq(graphBuilds.id, build!.id), eq(graphBuilds.status, "building")));
  let queued: boolean;
  try {
    queued = await ctx.graphQueue.enqueueBuild({ id: build!.id, userId: ctx.userId });
  } catch (error) {
    log.warn(`could not queue graph build ${build!.id}; answering 503`, error);
    // Should the job have been added after all, it finds no build and does nothing.
    await unrecord();
    throw new QueueUnavailableError();
  }
  if (!queued) {
    // graphile-worker added nothing: the previous build's job still held the user's key at that instant.
    await unrecord();
    throw new ConflictError(PREVIOUS_STILL_FINISHING);
  }
  await ctx.changes.publish({ userId: ctx.userId, kind: "graph" });
  return getBuildStatus({ ctx });
}
