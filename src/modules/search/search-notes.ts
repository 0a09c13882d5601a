import { sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { catchUpSearchIndex } from "./index-notes";
import { parseQuery, type QueryTerm } from "./parse-query";
import { searchExpressions } from "./search-expression";

export interface SearchPage {
  /** Note ids of the requested page, most relevant first. */
  noteIds: number[];
  total: number;
  terms: QueryTerm[];
}

/**
 * BM25 costs a few microseconds a match; past this many matches in a group, the newest this many
 * are ranked and the older follow newest first. A word in that many notes has an IDF near zero,
 * so BM25 would order them by recency anyway.
 */
export const RANKED_MATCHES = 2000;

/**
 * One page of a user's notes matching `q` (parsed here; a query with nothing to search is an
 * InvalidInputError): notes matching in title or tags first, then body-only matches, each by BM25.
 */
export async function searchNotes(
  db: Database,
  input: { userId: number; q: string; tag?: string; page: number; size: number },
): Promise<SearchPage> {
  const terms = parseQuery(input.q);
  // Notes written by imports since the last search are indexed before this one reads.
  await catchUpSearchIndex(db, { userId: input.userId });
  const { named, bodyOnly } = searchExpressions(terms, { userId: input.userId, tag: input.tag });
  const groups = named === null ? [bodyOnly] : [named, bodyOnly];
  let offset = (input.page - 1) * input.size;
  let total = 0;
  const noteIds: number[] = [];
  for (const expression of groups) {
    const matches = await countOf(db, expression);
    total += matches;
    const wanted = input.size - noteIds.length;
    if (wanted > 0 && offset < matches) noteIds.push(...(await pageOfGroup(db, expression, matches, wanted, offset)));
    offset = Math.max(0, offset - matches);
  }
  return { noteIds, total, terms };
}

// Every statement is a MATCH on the index alone (no join, rowid ranges only): ranking and counting
// stay inside FTS5; equal ranks go newest note first.
async function countOf(db: Database, expression: string): Promise<number> {
  const [row] = await db.all<{ n: number }>(sql`select count(*) as n from notes_fts where notes_fts match ${expression}`);
  return Number(row?.n ?? 0);
}

async function pageOfGroup(db: Database, expression: string, matches: number, limit: number, offset: number): Promise<number[]> {
  const ids = async (statement: ReturnType<typeof sql>) => (await db.all<{ id: number }>(statement)).map((row) => Number(row.id));
  if (matches <= RANKED_MATCHES) {
    return ids(sql`select rowid as id from notes_fts where notes_fts match ${expression} order by rank, rowid desc limit ${limit} offset ${offset}`);
  }
  // The oldest of the newest RANKED_MATCHES matches: FTS5 walks rowids newest first and stops there.
  const [boundary] = await ids(
    sql`select rowid as id from notes_fts where notes_fts match ${expression} order by rowid desc limit 1 offset ${RANKED_MATCHES - 1}`,
  );
  const found: number[] = [];
  if (offset < RANKED_MATCHES) {
    found.push(...(await ids(sql`select rowid as id from notes_fts where notes_fts match ${expression} and rowid >= ${boundary}
      order by rank, rowid desc limit ${Math.min(limit, RANKED_MATCHES - offset)} offset ${offset}`)));
  }
  if (found.length < limit) {
    found.push(...(await ids(sql`select rowid as id from notes_fts where notes_fts match ${expression} and rowid < ${boundary}
      order by rowid desc limit ${limit - found.length} offset ${Math.max(0, offset - RANKED_MATCHES)}`)));
  }
  return found;
}
