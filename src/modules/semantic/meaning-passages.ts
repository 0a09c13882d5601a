import type { Database } from "../../db/client";
import { embedQuery, readySpace, type SemanticSettings } from "./semantic-search";
import { nearestVectors } from "./vector-store";

export interface PassageHit {
  noteId: number;
  start: number;
  end: number;
  similarity: number;
}

// Passages a question draws from by meaning, before fusion with the words' and the graph's.
const MEANING_PASSAGES = 40;

/** The user's passages nearest the question in meaning, best first; null when meaning is not available now (ask then uses words and the graph). */
export async function passagesByMeaning(db: Database, semantic: SemanticSettings | undefined, userId: number, question: string): Promise<PassageHit[] | null> {
  const space = await readySpace(db, semantic, userId);
  if (!space || !semantic) return null;
  const vector = await embedQuery(semantic.client, userId, question);
  if (!vector) return null;
  const near = await nearestVectors(db, space, { userId, vector, kinds: ["passage"], limit: MEANING_PASSAGES });
  return near.flatMap((hit) => (hit.noteId === null ? [] : [{ noteId: hit.noteId, start: hit.start, end: hit.end, similarity: hit.similarity }]));
}
