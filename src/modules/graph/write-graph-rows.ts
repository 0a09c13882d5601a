import { sql } from "drizzle-orm";
import { graphEdges, graphMentions, graphNodeKeys, graphNodes } from "../../db/schema";
import type { GraphWriter } from "./remove-note-from-graph";
import { serializeStats } from "./node-stats";
import type { ResolvedNode } from "./resolve-entities";

const CHUNK = 400;
/** Rows per json_each statement: one bound JSON array instead of thousands of bound values. */
const JSON_CHUNK = 5000;

export interface NodeToWrite extends ResolvedNode {
  /** The id to keep (the concept had a node before), or undefined for a new one. */
  id: number | undefined;
  degree: number;
  community: number;
}

/** Inserts nodes with their concept keys and mentions; returns their ids in order. */
export async function insertNodes(tx: GraphWriter, userId: number, nodes: NodeToWrite[]): Promise<number[]> {
  const ids: number[] = new Array(nodes.length);
  for (let offset = 0; offset < nodes.length; offset += CHUNK) {
    const slice = nodes.slice(offset, offset + CHUNK);
    const inserted = await tx
      .insert(graphNodes)
      .values(
        slice.map((node) => ({
          ...(node.id !== undefined && { id: node.id }),
          userId,
          key: node.key,
          label: node.label,
          type: node.type,
          description: node.description,
          weight: node.mentions.length,
          degree: node.degree,
          community: node.community,
          noteIds: JSON.stringify(node.noteIds),
          aliases: JSON.stringify(node.aliases),
          stats: serializeStats(node.stats),
          hidden: node.hidden,
        })),
      )
      .returning({ id: graphNodes.id, key: graphNodes.key });
    const byKey = new Map(inserted.map((row) => [row.key, row.id]));
    slice.forEach((node, i) => (ids[offset + i] = byKey.get(node.key)!));
  }
  // Edges, mentions and keys are the bulk of a graph (tens of thousands of rows): each chunk is one
  // JSON array expanded by json_each inside SQLite, several times faster than bound VALUES lists.
  const keyRows = nodes.flatMap((node, index) => node.keys.map((key) => [key, ids[index]]));
  for (let offset = 0; offset < keyRows.length; offset += JSON_CHUNK) {
    await tx.run(sql`
      insert into ${graphNodeKeys} (user_id, key, node_id)
      select ${userId}, value ->> 0, value ->> 1 from json_each(${JSON.stringify(keyRows.slice(offset, offset + JSON_CHUNK))})`);
  }
  const mentionRows = nodes.flatMap((node, index) => node.mentions.map((m) => [ids[index], m.noteId, m.start, m.end, m.passage]));
  for (let offset = 0; offset < mentionRows.length; offset += JSON_CHUNK) {
    await tx.run(sql`
      insert or ignore into ${graphMentions} (node_id, note_id, start, end, passage)
      select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4
      from json_each(${JSON.stringify(mentionRows.slice(offset, offset + JSON_CHUNK))})`);
  }
  return ids;
}

export interface EdgeToWrite {
  sourceId: number;
  targetId: number;
  label: string;
  noteIds: number[];
}

export async function insertEdges(tx: GraphWriter, userId: number, edges: EdgeToWrite[]): Promise<void> {
  // An edge weighs one per note that states it (see resolveEntities).
  const rows = edges.map((edge) => [edge.sourceId, edge.targetId, edge.label, edge.noteIds.length, JSON.stringify(edge.noteIds)]);
  for (let offset = 0; offset < rows.length; offset += JSON_CHUNK) {
    await tx.run(sql`
      insert into ${graphEdges} (user_id, source_id, target_id, label, weight, note_ids)
      select ${userId}, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4
      from json_each(${JSON.stringify(rows.slice(offset, offset + JSON_CHUNK))})`);
  }
}

/** Degree is distinct neighbours either way; counted through the source and target indexes. */
export async function refreshDegrees(tx: GraphWriter, nodeIds: number[]): Promise<void> {
  if (nodeIds.length === 0) return;
  await tx.run(sql`
    update ${graphNodes} set degree = (
      select count(*) from (
        select target_id from ${graphEdges} where source_id = ${graphNodes.id}
        union select source_id from ${graphEdges} where target_id = ${graphNodes.id}
      )
    )
    where ${graphNodes.id} in (select value from json_each(${JSON.stringify(nodeIds)}))`);
}
