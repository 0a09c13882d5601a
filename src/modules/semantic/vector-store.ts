import type { InValue } from "@libsql/client";
import type { Database } from "../../db/client";
import type { VectorSpace } from "./space";
import { blobVector, readVector, storedVector, vectorBlob } from "./stored-vector";

/** `label`: a concept's label alone, compared only by merge suggestions. */
export type VectorKind = "title" | "passage" | "concept" | "label";

export interface NearVector {
  id: number;
  noteId: number | null;
  nodeId: number | null;
  kind: VectorKind;
  start: number;
  end: number;
  /** Cosine similarity, -1..1. */
  similarity: number;
}

// The ANN index answers for every user at once: this many candidates are asked for and the caller's
// kept. DiskANN's search keeps a beam of max(k, search_l) nodes (search_l 200 by default): a k above
// it made each query cost in proportion (k = 800 was 4× the time at 80,000 vectors).
const ANN_CANDIDATES = 200;

/**
 * The user's vectors of these kinds nearest `vector`, best first. The DiskANN index is asked first;
 * when it gives fewer than `limit` of the user's own (a small collection among larger ones, or a
 * small table), the user's rows are ranked exactly instead, which is cheap for exactly those cases.
 */
export async function nearestVectors(
  db: Database,
  space: VectorSpace,
  input: { userId: number; vector: Float32Array; kinds: VectorKind[]; limit: number; excludeNoteId?: number },
): Promise<NearVector[]> {
  const kinds = input.kinds.map((kind) => `'${kind}'`).join(", ");
  const exclude = input.excludeNoteId === undefined ? "" : "and coalesce(t.note_id, 0) != :exclude";
  const args: Record<string, InValue> = { q: vectorBlob(input.vector), user: input.userId, limit: input.limit, candidates: Math.max(ANN_CANDIDATES, input.limit) };
  if (input.excludeNoteId !== undefined) args.exclude = input.excludeNoteId;
  const columns = `t.id, t.note_id, t.node_id, t.kind, t.start, t."end", 1 - vector_distance_cos(t.embedding, ${storedVector(":q")}) as similarity`;
  const viaIndex = await db.$client.execute({
    sql: `select ${columns} from vector_top_k('${space.index}', ${storedVector(":q")}, :candidates) k
      join ${space.table} t on t.rowid = k.id
      where t.user_id = :user and t.kind in (${kinds}) ${exclude}
      order by similarity desc limit :limit`,
    args,
  });
  let rows = viaIndex.rows;
  if (rows.length < input.limit) {
    const exact = await db.$client.execute({
      sql: `select ${columns} from ${space.table} t indexed by ${space.table}_user_kind
        where t.user_id = :user and t.kind in (${kinds}) ${exclude}
        order by similarity desc limit :limit`,
      args: Object.fromEntries(Object.entries(args).filter(([name]) => name !== "candidates")),
    });
    rows = exact.rows;
  }
  return rows.map((row) => ({
    id: Number(row.id),
    noteId: row.note_id === null ? null : Number(row.note_id),
    nodeId: row.node_id === null ? null : Number(row.node_id),
    kind: row.kind as VectorKind,
    start: Number(row.start),
    end: Number(row.end),
    similarity: Number(row.similarity ?? -1),
  }));
}

/** The note's stored vectors (its title and passages), for finding what is near it. */
export async function noteVectors(db: Database, space: VectorSpace, userId: number, noteId: number): Promise<Float32Array[]> {
  const result = await db.$client.execute({
    sql: `select ${readVector("embedding")} as embedding from ${space.table} where note_id = :note and user_id = :user and kind in ('title', 'passage')`,
    args: { note: noteId, user: userId },
  });
  return result.rows.map((row) => blobVector(row.embedding));
}

/** The mean direction of unit-scaled vectors (what a note is about as a whole). */
export function centroid(vectors: Float32Array[]): Float32Array | null {
  if (vectors.length === 0) return null;
  const sum = new Float32Array(vectors[0]!.length);
  for (const vector of vectors) {
    let norm = 0;
    for (const value of vector) norm += value * value;
    norm = Math.sqrt(norm) || 1;
    for (let index = 0; index < sum.length; index++) sum[index]! += vector[index]! / norm;
  }
  return sum;
}
