import { and, eq, inArray, or, sql } from "drizzle-orm";
import { graphEdges, graphMentions, graphNodeKeys, graphNodes, graphNoteExtractions, graphNoteRemovals } from "../../db/schema";
import type { Database } from "../../db/client";
import { extractionKeys, parseStoredExtraction } from "./stored-extraction";

/** The write transaction a note's deletion runs in. */
export type GraphWriter = Parameters<Parameters<Database["transaction"]>[0]>[0];

/**
 * Takes a note out of its owner's graph before the note itself is deleted, in the caller's write
 * transaction: its mentions go, the nodes and edges that list it lose it (and the weight it gave
 * them), and those it alone supported disappear. Only the rows of the note's own concepts and their
 * edges are read: every node a note supports has a mention in it (each extracted concept has one).
 * Communities, labels, aliases and descriptions wait for the next build: the note's saved extraction
 * goes with it (foreign-key cascade), so a removal record keeps the concept keys it touched for that
 * build to recompute, and what the deletion removed for that build to report.
 */
export async function removeNoteFromGraph(tx: GraphWriter, { userId, noteId }: { userId: number; noteId: number }): Promise<void> {
  const [saved] = await tx
    .select({ applied: graphNoteExtractions.appliedResult })
    .from(graphNoteExtractions)
    .where(and(eq(graphNoteExtractions.noteId, noteId), eq(graphNoteExtractions.userId, userId)));
  const applied = saved?.applied ? parseStoredExtraction(saved.applied) : null;
  const keys = new Set(applied ? extractionKeys(applied) : []);
  const removal = { removedLabels: [] as string[], edgesRemoved: 0 };
  const touched = await removeContribution(tx, userId, noteId, keys, removal);
  if (!saved && !touched) return;
  await tx.insert(graphNoteRemovals).values({
    userId,
    noteId,
    keys: JSON.stringify([...keys]),
    removedLabels: JSON.stringify(removal.removedLabels),
    edgesRemoved: removal.edgesRemoved,
    removedAt: Date.now(),
  });
}

async function removeContribution(
  tx: GraphWriter,
  userId: number,
  noteId: number,
  keys: Set<string>,
  removal: { removedLabels: string[]; edgesRemoved: number },
): Promise<boolean> {
  const mentioned = await tx
    .select({ id: graphNodes.id, label: graphNodes.label, weight: graphNodes.weight, noteIds: graphNodes.noteIds, mentions: sql<number>`count(*)` })
    .from(graphMentions)
    .innerJoin(graphNodes, eq(graphNodes.id, graphMentions.nodeId))
    .where(and(eq(graphMentions.noteId, noteId), eq(graphNodes.userId, userId)))
    .groupBy(graphNodes.id);
  if (mentioned.length === 0) return false;
  const nodeIds = mentioned.map((node) => node.id);
  for (const row of await tx.select({ key: graphNodeKeys.key }).from(graphNodeKeys).where(inArray(graphNodeKeys.nodeId, nodeIds))) keys.add(row.key);

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
    if (noteIds.length === 0) {
      removal.edgesRemoved++;
      await tx.delete(graphEdges).where(eq(graphEdges.id, edge.id));
    } else await tx.update(graphEdges).set({ weight: noteIds.length, noteIds: JSON.stringify(noteIds) }).where(eq(graphEdges.id, edge.id));
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
  if (orphans.size > 0) {
    removal.removedLabels.push(...mentioned.filter((node) => orphans.has(node.id)).map((node) => node.label));
    // Their other edges go by cascade; those this note stated are already counted.
    const [gone] = await tx
      .select({ total: sql<number>`count(*)` })
      .from(graphEdges)
      .where(or(inArray(graphEdges.sourceId, [...orphans]), inArray(graphEdges.targetId, [...orphans])));
    removal.edgesRemoved += Number(gone?.total ?? 0);
    await tx.delete(graphNodes).where(inArray(graphNodes.id, [...orphans]));
  }
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
  return true;
}

/** The list without `noteId`, or null when it was not in it. */
function without(json: string, noteId: number): number[] | null {
  const noteIds: number[] = JSON.parse(json);
  return noteIds.includes(noteId) ? noteIds.filter((id) => id !== noteId) : null;
}
