import { sql } from "drizzle-orm";
import type { Database } from "../../src/db/client";

/**
 * A user's stored graph by concept, ids left out (a full build may renumber): what an incremental
 * build must leave exactly as a full build from the same saved extractions would.
 */
export async function graphSnapshot(db: Database, userId: number) {
  const nodes = await db.all<{ id: number; key: string; label: string; type: string; description: string; weight: number; degree: number; note_ids: string; aliases: string; hidden: number; stats: string | null }>(
    sql`select id, key, label, type, description, weight, degree, note_ids, aliases, hidden, stats from graph_nodes where user_id = ${userId} order by key`,
  );
  const keyOf = new Map(nodes.map((node) => [node.id, node.key]));
  const edges = await db.all<{ source_id: number; target_id: number; label: string; weight: number; note_ids: string }>(
    sql`select source_id, target_id, label, weight, note_ids from graph_edges where user_id = ${userId}`,
  );
  const mentions = await db.all<{ node_id: number; note_id: number; start: number; passage: string }>(
    sql`select m.node_id, m.note_id, m.start, m.passage from graph_mentions m join graph_nodes n on n.id = m.node_id where n.user_id = ${userId}`,
  );
  const keys = await db.all<{ key: string; node_id: number }>(sql`select key, node_id from graph_node_keys where user_id = ${userId} order by key`);
  return {
    nodes: nodes.map(({ id: _id, note_ids, aliases, stats, ...node }) => ({
      ...node,
      note_ids: JSON.parse(note_ids),
      aliases: JSON.parse(aliases),
      stats: stats === null ? null : JSON.parse(stats),
    })),
    edges: edges
      .map((edge) => ({ source: keyOf.get(edge.source_id), target: keyOf.get(edge.target_id), label: edge.label, weight: edge.weight, note_ids: JSON.parse(edge.note_ids) }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    mentions: mentions.map((m) => `${keyOf.get(m.node_id)}@${m.note_id}:${m.start}:${m.passage}`).sort(),
    keys: keys.map((row) => `${row.key}->${keyOf.get(row.node_id)}`),
  };
}
