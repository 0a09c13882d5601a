import type { Database } from "../../db/client";
import type { VectorSpace } from "./space";
import { nearestVectors } from "./vector-store";

/**
 * A note found only by meaning must be at least this similar to the query (cosine). Unrelated
 * texts sit around 0.2–0.45 with the models people use (nomic-embed-text, bge-m3,
 * text-embedding-3-small); a passage that answers the query sits above 0.5.
 */
export const SIMILARITY_FLOOR = 0.5;
// Passages read per query; several may be of one note.
const NEAREST_PASSAGES = 100;

export interface MeaningMatch {
  noteId: number;
  similarity: number;
  /** The passage nearest the query (null when the title and tags were nearest). */
  passage: { start: number; end: number } | null;
}

/** The user's notes nearest the query vector, by their nearest passage (or title), best first; those of `tag` only when given. */
export async function meaningRanking(
  db: Database,
  space: VectorSpace,
  input: { userId: number; vector: Float32Array; tag?: string; limit: number; excludeNoteId?: number },
): Promise<MeaningMatch[]> {
  const near = await nearestVectors(db, space, { userId: input.userId, vector: input.vector, kinds: ["title", "passage"], limit: NEAREST_PASSAGES, excludeNoteId: input.excludeNoteId });
  const best = new Map<number, MeaningMatch>();
  for (const vector of near) {
    if (vector.noteId === null || best.has(vector.noteId)) continue;
    best.set(vector.noteId, { noteId: vector.noteId, similarity: vector.similarity, passage: vector.kind === "passage" ? { start: vector.start, end: vector.end } : null });
  }
  if (best.size === 0) return [];
  // The notes as they are now: a vector of a note deleted or moved to the trash since is left out.
  const ids = JSON.stringify([...best.keys()]);
  const rows = await db.$client.execute(
    input.tag === undefined
      ? { sql: "select id from notes where id in (select value from json_each(:ids)) and user_id = :user", args: { ids, user: input.userId } }
      : {
          sql: "select note_id as id from note_tags where note_id in (select value from json_each(:ids)) and user_id = :user and tag = :tag",
          args: { ids, user: input.userId, tag: input.tag },
        },
  );
  const present = new Set(rows.rows.map((row) => Number(row.id)));
  return [...best.values()].filter((match) => present.has(match.noteId)).slice(0, input.limit);
}

/** Reciprocal rank fusion (Cormack et al.): each ranking adds 1 / (K + rank). */
export const RRF_K = 60;

export interface FusedNote {
  noteId: number;
  score: number;
  lexicalRank: number | null;
  meaning: MeaningMatch | null;
}

/**
 * One ranking from the words' and the meaning's. A note only the meaning found counts only above
 * SIMILARITY_FLOOR; ties go to the note the words found (an exact name stays ahead of a paraphrase).
 */
export function fuseRankings(lexical: number[], meaning: MeaningMatch[]): FusedNote[] {
  const fused = new Map<number, FusedNote>();
  lexical.forEach((noteId, index) => fused.set(noteId, { noteId, score: 1 / (RRF_K + index + 1), lexicalRank: index + 1, meaning: null }));
  meaning.forEach((match, index) => {
    const found = fused.get(match.noteId);
    if (found) {
      found.score += 1 / (RRF_K + index + 1);
      found.meaning = match;
    } else if (match.similarity >= SIMILARITY_FLOOR) {
      fused.set(match.noteId, { noteId: match.noteId, score: 1 / (RRF_K + index + 1), lexicalRank: null, meaning: match });
    }
  });
  return [...fused.values()].sort(
    (a, b) => b.score - a.score || (a.lexicalRank ?? Infinity) - (b.lexicalRank ?? Infinity) || (b.meaning?.similarity ?? 0) - (a.meaning?.similarity ?? 0),
  );
}
