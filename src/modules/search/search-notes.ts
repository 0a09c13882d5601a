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

// Ranked and counted inside FTS5 alone (no join around MATCH); equal ranks go newest note first.
const count = (expression: string) => sql`select count(*) as n from notes_fts where notes_fts match ${expression}`;
const ranked = (expression: string, limit: number, offset: number) =>
  sql`select rowid as id from notes_fts where notes_fts match ${expression} order by rank, rowid desc limit ${limit} offset ${offset}`;

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
  const [namedTotal, bodyTotal] = await Promise.all([
    named === null ? 0 : totalOf(db, named),
    totalOf(db, bodyOnly),
  ]);
  const offset = (input.page - 1) * input.size;
  const noteIds: number[] = [];
  if (named !== null && offset < namedTotal) noteIds.push(...(await idsOf(db, named, input.size, offset)));
  const left = input.size - noteIds.length;
  const bodyOffset = Math.max(0, offset - namedTotal);
  if (left > 0 && bodyOffset < bodyTotal) noteIds.push(...(await idsOf(db, bodyOnly, left, bodyOffset)));
  return { noteIds, total: namedTotal + bodyTotal, terms };
}

async function totalOf(db: Database, expression: string): Promise<number> {
  const [row] = await db.all<{ n: number }>(count(expression));
  return Number(row?.n ?? 0);
}

async function idsOf(db: Database, expression: string, limit: number, offset: number): Promise<number[]> {
  const rows = await db.all<{ id: number }>(ranked(expression, limit, offset));
  return rows.map((row) => Number(row.id));
}
