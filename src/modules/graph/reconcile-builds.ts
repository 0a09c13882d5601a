import { and, eq, lt } from "drizzle-orm";
import { graphBuilds } from "../../db/schema";
import type { Database } from "../../db/client";
import type { ChangePublisher } from "../events/change";
import { log } from "../../log";
import { failBuild } from "./fail-build";
import type { GraphQueue } from "./graph-queue";

const GRACE_MS = 60_000;

/**
 * A build stays `building` only while its job exists: one whose job vanished or ran out of
 * attempts is marked failed, so the user can start another (a crashed worker's job is instead
 * released by the queue and resumes).
 */
export async function reconcileGraphBuilds(db: Database, queue: GraphQueue, changes: ChangePublisher, now = Date.now()): Promise<number> {
  const stale = await db
    .select({ id: graphBuilds.id, userId: graphBuilds.userId })
    .from(graphBuilds)
    .where(and(eq(graphBuilds.status, "building"), lt(graphBuilds.updatedAt, now - GRACE_MS)));
  let failed = 0;
  for (const build of stale) {
    const job = await queue.findBuildJob(build.userId);
    if (job && !job.permanentlyFailed) continue;
    await failBuild(db, build.id, "The build stopped unexpectedly; start it again", changes);
    failed++;
  }
  if (failed) log.info(`reconciler: ${failed} graph build(s) marked failed`);
  return failed;
}
