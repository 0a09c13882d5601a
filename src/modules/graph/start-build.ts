import { and, eq } from "drizzle-orm";
import { graphBuilds } from "../../db/schema";
import type { Database } from "../../db/client";
import type { ChangePublisher } from "../events/change";
import { isConstraintViolation } from "../../db/errors";
import { log } from "../../log";
import { ConflictError } from "../errors";
import { getBuildStatus } from "./get-build-status";
import type { GraphQueue } from "./graph-queue";
import type { BuildMode, BuildStatus } from "./schemas";

const ALREADY_BUILDING = "A graph build is already queued or running; follow it at GET /api/knowledge-graph/status";

/**
 * Records a build and queues its job (one per user, keyed `graph:<userId>`). A partial unique
 * index allows one `building` row per user, so two concurrent requests cannot both start one.
 */
export async function startGraphBuild({
  ctx,
  input,
}: {
  ctx: { db: Database; userId: number; graphQueue: GraphQueue; changes: ChangePublisher };
  input: { mode: BuildMode };
}): Promise<BuildStatus> {
  const now = Date.now();
  let build: typeof graphBuilds.$inferSelect | undefined;
  try {
    [build] = await ctx.db
      .insert(graphBuilds)
      .values({ userId: ctx.userId, mode: input.mode, status: "building", message: "Queued", startedAt: now, updatedAt: now })
      .returning();
  } catch (error) {
    if (isConstraintViolation(error)) throw new ConflictError(ALREADY_BUILDING);
    throw error;
  }
  const queued = await ctx.graphQueue.enqueueBuild({ id: build!.id, userId: ctx.userId }).catch((error: unknown) => {
    log.warn(`could not queue graph build ${build!.id}`, error);
    return false;
  });
  if (!queued) {
    // Without a job the build would sit in `building` and block the next one: fail it now.
    await ctx.db
      .update(graphBuilds)
      .set({ status: "failed", error: "The job queue is unavailable; try again shortly", message: "Failed", finishedAt: Date.now() })
      .where(and(eq(graphBuilds.id, build!.id), eq(graphBuilds.status, "building")));
  }
  await ctx.changes.publish({ userId: ctx.userId, kind: "graph" });
  return getBuildStatus({ ctx });
}
