import { sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { searchIndexReady } from "./index-ready";
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
 * FTS5's BM25 reads every posting of the query's terms once per statement (for their IDF), however
 * few rows it ranks: 30–250 ms for a word in most of 100,000 notes. A query matching more notes than
 * this is not a search that picks notes out; its groups (title or tags first) go newest first.
 */
export const RANKED_QUERY_MATCHES = 10_000;

/**
 * One page of a user's notes matching `q` (parsed here; a query with nothing to search is an
 * InvalidInputError): notes matching in title or tags first, then body-only matches, each by BM25.
 * `total` is one count of all matches; the title-or-tags group is counted only as far as the page
 * reaches (a common word's full count of each group cost two scans of its postings).
 */
export async function searchNotes(
  db: Database,
  input: { userId: number; q: string; tag?: string; page: number; size: number },
): Promise<SearchPage> {
  const terms = parseQuery(input.q);
  // Notes written by imports since the last search are indexed before this one reads.
  await searchIndexReady(db, input.userId);
  const { all, named, bodyOnly } = searchExpressions(terms, { userId: input.userId, tag: input.tag });
  const offset = (input.page - 1) * input.size;
  const end = offset + input.size;
  const total = await countOf(db, all);
  const noteIds: number[] = [];
  // Matches in titles or tags: exact when fewer than `end`, else the page lies within them.
  const inNames = named === null ? 0 : await countUpTo(db, named, end);
  const ranked = total <= RANKED_QUERY_MATCHES;
  // A group's size, when known, spares the statement that finds its ranking boundary.
  if (named !== null && offset < inNames) {
    noteIds.push(...(await pageOfGroup(db, named, Math.min(input.size, inNames - offset), offset, ranked, inNames < end ? inNames : undefined)));
  }
  if (noteIds.length < input.size && inNames < end && total > inNames) {
    noteIds.push(...(await pageOfGroup(db, bodyOnly, input.size - noteIds.length, Math.max(0, offset - inNames), ranked, total - inNames)));
  }
  return { noteIds, total, terms };
}

// Every statement is a MATCH on the index alone (no join, rowid ranges only): ranking and counting
// stay inside FTS5; equal ranks go newest note first.
async function countOf(db: Database, expression: string): Promise<number> {
  const [row] = await db.all<{ n: number }>(sql`select count(*) as n from notes_fts where notes_fts match ${expression}`);
  return Number(row?.n ?? 0);
}

/** The number of matches, counted no further than `limit` (FTS5 stops walking the postings there). */
async function countUpTo(db: Database, expression: string, limit: number): Promise<number> {
  const [row] = await db.all<{ n: number }>(sql`select count(*) as n from (select rowid from notes_fts where notes_fts match ${expression} limit ${limit})`);
  return Number(row?.n ?? 0);
}

async function pageOfGroup(db: Database, expression: string, limit: number, offset: number, ranked: boolean, size?: number): Promise<number[]> {
  const ids = async (statement: ReturnType<typeof sql>) => (await db.all<{ id: number }>(statement)).map((row) => Number(row.id));
  if (!ranked) return ids(sql`select rowid as id from notes_fts where notes_fts match ${expression} order by rowid desc limit ${limit} offset ${offset}`);
  // The oldest of the newest RANKED_MATCHES matches (none when there are fewer): FTS5 walks rowids newest first and stops there.
  const [boundary] =
    size !== undefined && size <= RANKED_MATCHES
      ? []
      : await ids(sql`select rowid as id from notes_fts where notes_fts match ${expression} order by rowid desc limit 1 offset ${RANKED_MATCHES - 1}`);
  if (boundary === undefined) {
    return ids(sql`select rowid as id from notes_fts where notes_fts match ${expression} order by rank, rowid desc limit ${limit} offset ${offset}`);
  }
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
