import type { Database } from "../../db/client";
import { parseQuery, type QueryTerm } from "../search/parse-query";
import { searchNotes } from "../search/search-notes";
import { fuseRankings, meaningRanking, SIMILARITY_FLOOR, type FusedNote } from "./meaning-ranking";
import { embedQuery, readySpace, type SemanticSettings } from "./semantic-search";

export type SearchMode = "hybrid" | "lexical" | "semantic";

export interface MeaningSearch {
  mode: "hybrid" | "semantic";
  /** The requested page's notes, best first. */
  page: FusedNote[];
  total: number;
  /** The query's terms, for the snippets of notes the words found. */
  terms: QueryTerm[];
}

// Notes the meaning contributes to one search (its ranking is read once, whatever the page).
const MEANING_NOTES = 50;
// The words' ranking is read this deep at least: enough to fuse the first pages.
const LEXICAL_POOL = 50;
const MAX_LEXICAL_POOL = 1000;

/**
 * A page of notes matching `q` by meaning (`semantic`) or by words and meaning fused (`hybrid`),
 * or null when meaning is not available for this user now: embeddings not set up, the user's notes
 * still being embedded, or the query not embedded within 2 s. The caller then searches by words.
 */
export async function searchByMeaning(
  ctx: { db: Database; userId: number; semantic?: SemanticSettings },
  input: { q: string; tag?: string; page: number; size: number; mode: "hybrid" | "semantic" },
): Promise<MeaningSearch | null> {
  const terms = parseQuery(input.q); // a query with nothing to search is a 400 whatever the mode
  const space = await readySpace(ctx.db, ctx.semantic, ctx.userId);
  if (!space || !ctx.semantic) return null;
  // The words are searched while the server embeds the query.
  const embedding = embedQuery(ctx.semantic.client, ctx.userId, input.q);
  const offset = (input.page - 1) * input.size;
  const pool = Math.min(MAX_LEXICAL_POOL, Math.max(LEXICAL_POOL, offset + input.size));
  const lexical = input.mode === "hybrid" ? await searchNotes(ctx.db, { userId: ctx.userId, q: input.q, tag: input.tag, page: 1, size: pool }) : null;
  const vector = await embedding;
  if (!vector) return null;
  const meaning = await meaningRanking(ctx.db, space, { userId: ctx.userId, vector, tag: input.tag, limit: MEANING_NOTES });
  if (!lexical) {
    const found = meaning.filter((match) => match.similarity >= SIMILARITY_FLOOR);
    const page = found.slice(offset, offset + input.size).map((match) => ({ noteId: match.noteId, score: match.similarity, lexicalRank: null, meaning: match }));
    return { mode: "semantic", page, total: found.length, terms };
  }
  const fused = fuseRankings(lexical.noteIds, meaning);
  const meaningOnly = fused.filter((note) => note.lexicalRank === null).length;
  return { mode: "hybrid", page: fused.slice(offset, offset + input.size), total: lexical.total + meaningOnly, terms: lexical.terms };
}
