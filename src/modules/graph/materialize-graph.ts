import { and, eq, sql } from "drizzle-orm";
import { graphEdges, graphNodeKeys, graphNodes, graphNoteExtractions } from "../../db/schema";
import type { Database } from "../../db/client";
import { loadConceptRules } from "./concept-rules";
import { compareGraphs, consumeRemovals, type GraphChanges } from "./graph-changes";
import { computeGraphMetrics } from "./graph-metrics";
import type { ConceptRules } from "./node-stats";
import { resolveEntities } from "./resolve-entities";
import { parseStoredExtraction, type StoredExtraction } from "./stored-extraction";
import { insertEdges, insertNodes } from "./write-graph-rows";

/**
 * Recomputes the user's whole graph from the stored note extractions (a full build, or a graph
 * written before builds were incremental) and swaps it in with one write transaction, so readers
 * see the old graph or the new one, never a mix. Nodes keep their ids while their concept remains;
 * what only deleted notes supported disappears. Every saved extraction is then the applied one.
 */
export async function materializeGraph(db: Database, userId: number): Promise<{ nodes: number; edges: number; changes: GraphChanges }> {
  const rows = await db
    .select({ noteId: graphNoteExtractions.noteId, result: graphNoteExtractions.result })
    .from(graphNoteExtractions)
    .where(and(eq(graphNoteExtractions.userId, userId), eq(graphNoteExtractions.status, "ok")));
  const extractions = rows.flatMap((row) => {
    const extraction = parseStoredExtraction(row.result);
    return extraction ? [{ noteId: row.noteId, extraction }] : [];
  });

  return db.transaction(async (tx) => {
    const rules = await loadConceptRules(tx, userId);
    // A note deleted since the read above already left the graph; it must not come back.
    const current = await tx.select({ noteId: graphNoteExtractions.noteId }).from(graphNoteExtractions).where(eq(graphNoteExtractions.userId, userId));
    const remaining = new Set(current.map((row) => row.noteId));
    const { nodes, edges, metrics } = planGraph(
      extractions.filter((entry) => remaining.has(entry.noteId)),
      rules,
    );
    const previous = await tx.select({ id: graphNodes.id, key: graphNodes.key, label: graphNodes.label }).from(graphNodes).where(eq(graphNodes.userId, userId));
    const keyOf = new Map(previous.map((node) => [node.id, node.key]));
    const previousEdges = await tx
      .select({ sourceId: graphEdges.sourceId, targetId: graphEdges.targetId, label: graphEdges.label })
      .from(graphEdges)
      .where(eq(graphEdges.userId, userId));
    const keptIds = new Map(previous.map((node) => [node.key, node.id]));
    // Deleting cascades to the old edges, mentions and keys; surviving concepts are re-inserted under their old ids.
    await tx.delete(graphNodes).where(eq(graphNodes.userId, userId));
    const ids = await insertNodes(
      tx,
      userId,
      nodes.map((node, index) => ({ ...node, id: keptIds.get(node.key), degree: metrics.get(index)?.degree ?? 0, community: metrics.get(index)?.community ?? 0 })),
    );
    await insertEdges(
      tx,
      userId,
      edges.map((edge) => ({ sourceId: ids[edge.source]!, targetId: ids[edge.target]!, label: edge.label, noteIds: edge.noteIds })),
    );
    await tx.run(sql`update ${graphNoteExtractions} set applied_result = case when status = 'ok' then result end, applied = 1 where user_id = ${userId}`);

    const changes = compareGraphs(
      { nodes: previous, edges: new Set(previousEdges.map((edge) => edgeIdentity(keyOf.get(edge.sourceId)!, keyOf.get(edge.targetId)!, edge.label))) },
      {
        nodes: nodes.map((node, index) => ({ ...node, id: ids[index]! })),
        edges: new Set(edges.map((edge) => edgeIdentity(nodes[edge.source]!.key, nodes[edge.target]!.key, edge.label))),
      },
    );
    await consumeRemovals(tx, userId, changes);
    return { nodes: nodes.length, edges: edges.length, changes };
  });
}

export function edgeIdentity(source: string, target: string, label: string): string {
  return JSON.stringify([source, target, label]);
}

function planGraph(extractions: { noteId: number; extraction: StoredExtraction }[], rules: ConceptRules) {
  const { nodes, edges } = resolveEntities(extractions, rules);
  const metrics = computeGraphMetrics(
    nodes.map((_, index) => index),
    edges.map((edge) => ({ sourceId: edge.source, targetId: edge.target, weight: edge.weight })),
  );
  return { nodes, edges, metrics };
}

/**
 * When an incremental build should compute the graph whole: a graph written before the key index
 * existed (or by hand) is rebuilt once; an empty graph (a first build) is the same graph either way,
 * and computing it whole is much cheaper than adding thousands of notes' shares one by one.
 */
export async function needsWholeGraph(db: Database, userId: number): Promise<boolean> {
  const [[node], [key]] = await db.batch([
    db.select({ id: graphNodes.id }).from(graphNodes).where(eq(graphNodes.userId, userId)).limit(1),
    db.select({ nodeId: graphNodeKeys.nodeId }).from(graphNodeKeys).where(eq(graphNodeKeys.userId, userId)).limit(1),
  ]);
  return node === undefined || key === undefined;
}

