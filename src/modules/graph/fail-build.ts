import { and, eq } from "drizzle-orm";
import { graphBuilds } from "../../db/schema";
import type { Database } from "../../db/client";
import type { ChangePublisher } from "../events/change";

/** Marks a build that is still `building` as failed with a message for the user; a finished build is left alone. */
export async function failBuild(db: Database, buildId: number, error: string, changes: ChangePublisher): Promise<void> {
  const [failed] = await db
    .update(graphBuilds)
    .set({ status: "failed", error, message: "Failed", finishedAt: Date.now(), updatedAt: Date.now() })
    .where(and(eq(graphBuilds.id, buildId), eq(graphBuilds.status, "building")))
    .returning({ userId: graphBuilds.userId });
  if (failed) await changes.publish({ userId: failed.userId, kind: "graph", event: { type: "graph.build.failed" } });
}
