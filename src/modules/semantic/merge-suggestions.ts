import type { Database } from "../../db/client";
import { conceptKey } from "../graph/concept-key";
import { readySpace, requestEmbedding, type SemanticSettings } from "./semantic-search";
import { blobVector, readVector } from "./stored-vector";

/**
 * Two labels at least this close in meaning are worth asking about. A label alone is short: one
 * name in two languages or spellings ("Loss aversion", "损失厌恶") comes near one vector with a
 * multilingual model, while merely related concepts sit lower. A suggestion asks the user to act, so
 * the bar is high: a pair missed costs less than real pairs buried among loose ones.
 */
export const MERGE_SIMILARITY = 0.8;
// Pairs are compared among the heaviest concepts only: n² comparisons, 125,000 at this many.
const COMPARED_CONCEPTS = 500;

/**
 * Pairs of the user's visible concepts whose labels differ but name the same thing, best first:
 * judged on the vectors of the labels alone (the embedding job stores them beside the label-and-
 * description vectors search uses), so sharing a note or a sentence is no reason. The user decides:
 * merging is the existing merge operation. Empty without embeddings.
 */
export async function mergeSuggestions({ ctx, input }: { ctx: { db: Database; userId: number; semantic?: SemanticSettings }; input: { limit: number } }) {
  const space = await readySpace(ctx.db, ctx.semantic, ctx.userId);
  if (!space) return { items: [] };
  const rows = await ctx.db.$client.execute({
    sql: `select g.id, g.label, ${readVector("v.embedding")} as embedding from graph_nodes g join ${space.table} v on v.node_id = g.id and v.kind = 'label' and v.user_id = :user
      where g.user_id = :user and g.hidden = 0 order by g.weight desc, g.id limit :limit`,
    args: { user: ctx.userId, limit: COMPARED_CONCEPTS },
  });
  const concepts = rows.rows.map((row) => ({ id: Number(row.id), label: String(row.label), key: conceptKey(String(row.label)), vector: unit(blobVector(row.embedding)) }));
  // Concepts of a build since the last embedding run (or embedded before labels were) get their label vectors soon; asking again must not delay that.
  const visible = await ctx.db.$client.execute({ sql: "select count(*) as n from graph_nodes where user_id = ? and hidden = 0", args: [ctx.userId] });
  if (Number(visible.rows[0]?.n ?? 0) > concepts.length && concepts.length < COMPARED_CONCEPTS) requestEmbedding(ctx.semantic, ctx.userId);
  const pairs: { nodes: { id: number; label: string }[]; score: number }[] = [];
  for (let i = 0; i < concepts.length; i++) {
    for (let j = i + 1; j < concepts.length; j++) {
      const a = concepts[i]!;
      const b = concepts[j]!;
      if (a.key === b.key) continue;
      const similarity = dot(a.vector, b.vector);
      if (similarity >= MERGE_SIMILARITY) pairs.push({ nodes: [{ id: a.id, label: a.label }, { id: b.id, label: b.label }], score: Math.round(similarity * 1e6) / 1e6 });
    }
  }
  pairs.sort((a, b) => b.score - a.score || a.nodes[0]!.id - b.nodes[0]!.id);
  return { items: pairs.slice(0, input.limit) };
}

function unit(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  return vector.map((value) => value / norm);
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < a.length; index++) sum += a[index]! * b[index]!;
  return sum;
}
