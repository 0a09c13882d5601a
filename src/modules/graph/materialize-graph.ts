import { and, eq, sql } from "drizzle-orm";
import { graphEdges, graphMentions, graphNodes, graphNoteExtractions } from "../../db/schema";
import type { Database } from "../../db/client";
import { computeGraphMetrics } from "./graph-metrics";
import { resolveEntities } from "./resolve-entities";
import { storedExtractionSchema, type StoredExtraction } from "./stored-extraction";

const CHUNK = 400;
/** Rows per json_each statement: one bound JSON array instead of thousands of bound values. */
const JSON_CHUNK = 5000;

/**
 * Recomputes the user's graph from the stored note extractions and swaps it in with one write
 * transaction, so readers see the old graph or the new one, never a mix. Nodes keep their ids
 * across builds while their concept remains; what only deleted notes supported disappears.
 */
export async function materializeGraph(db: Database, userId: number): Promise<{ nodes: number; edges: number }> {
  const rows = await db
    .select({ noteId: graphNoteExtractions.noteId, result: graphNoteExtractions.result })
    .from(graphNoteExtractions)
    .where(and(eq(graphNoteExtractions.userId, userId), eq(graphNoteExtractions.status, "ok")));
  const extractions = rows.flatMap((row) => {
    const parsed = storedExtractionSchema.safeParse(JSON.parse(row.result));
    return parsed.success ? [{ noteId: row.noteId, extraction: parsed.data }] : [];
  });
  let plan = planGraph(extractions);

  await db.transaction(async (tx) => {
    // A note deleted since the read above already left the graph; it must not come back.
    const current = await tx.select({ noteId: graphNoteExtractions.noteId }).from(graphNoteExtractions).where(eq(graphNoteExtractions.userId, userId));
    const remaining = new Set(current.map((row) => row.noteId));
    if (extractions.some((entry) => !remaining.has(entry.noteId))) plan = planGraph(extractions.filter((entry) => remaining.has(entry.noteId)));
    const { nodes, edges, metrics } = plan;
    const previous = await tx.select({ id: graphNodes.id, key: graphNodes.key }).from(graphNodes).where(eq(graphNodes.userId, userId));
    const keptIds = new Map(previous.map((node) => [node.key, node.id]));
    // Deleting cascades to the old edges and mentions; surviving concepts are re-inserted under their old ids.
    await tx.delete(graphNodes).where(eq(graphNodes.userId, userId));
    const ids: number[] = new Array(nodes.length);
    for (let offset = 0; offset < nodes.length; offset += CHUNK) {
      const slice = nodes.slice(offset, offset + CHUNK);
      const inserted = await tx
        .insert(graphNodes)
        .values(
          slice.map((node, i) => ({
            ...(keptIds.has(node.key) && { id: keptIds.get(node.key)! }),
            userId,
            key: node.key,
            label: node.label,
            type: node.type,
            description: node.description,
            weight: node.mentions.length,
            degree: metrics.get(offset + i)?.degree ?? 0,
            community: metrics.get(offset + i)?.community ?? 0,
            noteIds: JSON.stringify(node.noteIds),
            aliases: JSON.stringify(node.aliases),
          })),
        )
        .returning({ id: graphNodes.id, key: graphNodes.key });
      const byKey = new Map(inserted.map((row) => [row.key, row.id]));
      slice.forEach((node, i) => (ids[offset + i] = byKey.get(node.key)!));
    }
    // Edges and mentions are the bulk of a graph (tens of thousands of rows): each chunk is one
    // JSON array expanded by json_each inside SQLite, several times faster than bound VALUES lists.
    const edgeRows = edges.map((edge) => [ids[edge.source], ids[edge.target], edge.label, edge.weight, JSON.stringify(edge.noteIds)]);
    for (let offset = 0; offset < edgeRows.length; offset += JSON_CHUNK) {
      await tx.run(sql`
        insert into ${graphEdges} (user_id, source_id, target_id, label, weight, note_ids)
        select ${userId}, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4
        from json_each(${JSON.stringify(edgeRows.slice(offset, offset + JSON_CHUNK))})`);
    }
    const mentionRows = nodes.flatMap((node, index) => node.mentions.map((m) => [ids[index], m.noteId, m.start, m.end, m.passage]));
    for (let offset = 0; offset < mentionRows.length; offset += JSON_CHUNK) {
      await tx.run(sql`
        insert or ignore into ${graphMentions} (node_id, note_id, start, end, passage)
        select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4
        from json_each(${JSON.stringify(mentionRows.slice(offset, offset + JSON_CHUNK))})`);
    }
  });
  return { nodes: plan.nodes.length, edges: plan.edges.length };
}

function planGraph(extractions: { noteId: number; extraction: StoredExtraction }[]) {
  const { nodes, edges } = resolveEntities(extractions);
  const metrics = computeGraphMetrics(
    nodes.map((_, index) => index),
    edges.map((edge) => ({ sourceId: edge.source, targetId: edge.target, weight: edge.weight })),
  );
  return { nodes, edges, metrics };
}
