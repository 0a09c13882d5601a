import { and, eq, inArray, or, sql } from "drizzle-orm";
import { graphEdges, graphMentions, graphNodes } from "../../db/schema";
import type { Database } from "../../db/client";

/** The write transaction a note's deletion runs in. */
export type GraphWriter = Parameters<Parameters<Database["transaction"]>[0]>[0];

/**
 * Takes a note out of its owner's graph before the note itself is deleted, in the caller's write
 * transaction: its mentions go, the nodes and edges that list it lose it (and the weight it gave
 * them), and those it alone supported disappear. Only the rows of the note's own concepts and their
 * edges are read: every node a note supports has a mention in it (each extracted concept has one).
 * Communities, labels and descriptions wait for the next build, which recomputes everything from
 * the saved extractions (the note's goes with it).
 */
export async function removeNoteFromGraph(tx: GraphWriter, { userId, noteId }: { userId: number; noteId: number }): Promise<void> {
  const mentioned = await tx
    .select({ id: graphNodes.id, weight: graphNodes.weight, noteIds: graphNodes.noteIds, mentions: sql<number>`count(*)` })
    .from(graphMentions)
    .innerJoin(graphNodes, eq(graphNodes.id, graphMentions.nodeId))
    .where(and(eq(graphMentions.noteId, noteId), eq(graphNodes.userId, userId)))
    .groupBy(graphNodes.id);
  if (mentioned.length === 0) return;
  const nodeIds = mentioned.map((node) => node.id);

  const edges = await tx
    .select({ id: graphEdges.id, sourceId: graphEdges.sourceId, targetId: graphEdges.targetId, noteIds: graphEdges.noteIds })
    .from(graphEdges)
    .where(or(inArray(graphEdges.sourceId, nodeIds), inArray(graphEdges.targetId, nodeIds)));
  const orphans = new Set(mentioned.filter((node) => (without(node.noteIds, noteId) ?? [0]).length === 0).map((node) => node.id));
  // Nodes whose neighbours change: the ends of every edge this note stated or that goes with an orphan.
  const touched = new Set<number>();
  for (const edge of edges) {
    if (orphans.has(edge.sourceId) || orphans.has(edge.targetId)) touched.add(edge.sourceId).add(edge.targetId);
    const noteIds = without(edge.noteIds, noteId);
    if (!noteIds) continue;
    touched.add(edge.sourceId).add(edge.targetId);
    // An edge weighs one per note that states it (see resolveEntities).
    if (noteIds.length === 0) await tx.delete(graphEdges).where(eq(graphEdges.id, edge.id));
    else await tx.update(graphEdges).set({ weight: noteIds.length, noteIds: JSON.stringify(noteIds) }).where(eq(graphEdges.id, edge.id));
  }

  for (const node of mentioned) {
    const noteIds = without(node.noteIds, noteId);
    if (orphans.has(node.id)) continue;
    const weight = Math.max(0, node.weight - Number(node.mentions));
    await tx
      .update(graphNodes)
      .set({ weight, ...(noteIds && { noteIds: JSON.stringify(noteIds) }) })
      .where(eq(graphNodes.id, node.id));
  }
  // Cascades to their edges and mentions.
  if (orphans.size > 0) await tx.delete(graphNodes).where(inArray(graphNodes.id, [...orphans]));
  await tx.delete(graphMentions).where(eq(graphMentions.noteId, noteId));

  const survivors = [...touched].filter((id) => !orphans.has(id));
  if (survivors.length > 0) {
    // Degree is distinct neighbours either way; counted through the source and target indexes.
    await tx.run(sql`
      update ${graphNodes} set degree = (
        select count(*) from (
          select target_id from ${graphEdges} where source_id = ${graphNodes.id}
          union select source_id from ${graphEdges} where target_id = ${graphNodes.id}
        )
      )
      where ${inArray(graphNodes.id, survivors)}`);
  }
}

/** The list without `noteId`, or null when it was not in it. */
function without(json: string, noteId: number): number[] | null {
  const noteIds: number[] = JSON.parse(json);
  return noteIds.includes(noteId) ? noteIds.filter((id) => id !== noteId) : null;
}
