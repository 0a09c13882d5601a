import { eq, sql } from "drizzle-orm";
import { graphEdges, graphNodes } from "../../db/schema";
import type { Database } from "../../db/client";
import { computeGraphMetrics } from "./graph-metrics";

/**
 * Recomputes Louvain communities over the user's whole graph after an incremental build swapped
 * its changes in (the one part of the graph that depends on all of it). Only changed rows are written.
 */
export async function refreshCommunities(db: Database, userId: number): Promise<void> {
  const [nodes, edges] = await db.batch([
    db.select({ id: graphNodes.id, community: graphNodes.community }).from(graphNodes).where(eq(graphNodes.userId, userId)),
    db.select({ sourceId: graphEdges.sourceId, targetId: graphEdges.targetId, weight: graphEdges.weight }).from(graphEdges).where(eq(graphEdges.userId, userId)),
  ]);
  const metrics = computeGraphMetrics(
    nodes.map((node) => node.id),
    edges,
  );
  const updates = nodes.flatMap((node) => {
    const community = metrics.get(node.id)?.community ?? 0;
    return community === node.community ? [] : [[node.id, community]];
  });
  if (updates.length === 0) return;
  await db.run(sql`
    update ${graphNodes} set community = (select value ->> 1 from json_each(${JSON.stringify(updates)}) where value ->> 0 = ${graphNodes.id})
    where ${graphNodes.id} in (select value ->> 0 from json_each(${JSON.stringify(updates)}))`);
}
