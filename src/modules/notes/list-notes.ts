import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { z } from "zod";
import { noteCounts, notes, noteTags, tagCounts } from "../../db/schema";
import type { Database } from "../../db/client";
import { packedRow } from "../../db/packed-row";
import { preparedPerDatabase } from "../../db/prepared";
import { readStatements } from "../../db/read-statements";
import { searchNotes } from "../search/search-notes";
import { noteSnippets } from "../search/snippet";
import { noteColumns, toNoteListItem } from "./note-record";
import type { listNotesInput, NoteListItem } from "./schemas";
import { pageOf, type Page } from "../pagination";
import { RRF_K } from "../semantic/meaning-ranking";
import { searchByMeaning, type MeaningSearch, type SearchMode } from "../semantic/search-by-meaning";
import type { SemanticSettings } from "../semantic/semantic-search";
import { truncateText } from "../llm/chunk-text";

type ListContext = { db: Database; userId: number; semantic?: SemanticSettings };
type NotePage = Page<NoteListItem> & { mode?: SearchMode };

const listColumns = { ...noteColumns, excerpt: notes.excerpt };

const userId = sql.placeholder("userId");
const tag = sql.placeholder("tag");
const limit = sql.placeholder("limit");
const offset = sql.placeholder("offset");

// A page's twenty rows of ten columns each come back as one JSON column a row (see packedRow).
const listRow = packedRow(listColumns);

const statements = preparedPerDatabase((db) => ({
  page: db.select({ row: listRow.column }).from(notes).where(eq(notes.userId, userId))
    .orderBy(desc(notes.updatedAt), desc(notes.id)).limit(limit).offset(offset).prepare(),
  total: db.select({ total: noteCounts.total }).from(noteCounts).where(eq(noteCounts.userId, userId)).prepare(),
  tagPage: db.select({ row: listRow.column }).from(noteTags).innerJoin(notes, eq(notes.id, noteTags.noteId))
    .where(and(eq(noteTags.userId, userId), eq(noteTags.tag, tag)))
    .orderBy(desc(noteTags.updatedAt), desc(noteTags.noteId)).limit(limit).offset(offset).prepare(),
  tagTotal: db.select({ total: tagCounts.total }).from(tagCounts).where(and(eq(tagCounts.userId, userId), eq(tagCounts.tag, tag))).prepare(),
}));

/**
 * Newest `updated_at` first, ties by id. Both paths walk one index range and read totals from
 * trigger-kept counters, so a page costs the same at 1,000 notes as at 100,000. With `q`, the
 * search index orders the page and each item gains a snippet.
 */
export async function listNotes({ ctx, input }: { ctx: ListContext; input: z.infer<typeof listNotesInput> }): Promise<NotePage> {
  if (input.q) return searchNoteList({ ctx, input: { ...input, q: input.q } });
  const { page, total, tagPage, tagTotal } = statements(ctx.db);
  const reads = readStatements(ctx.db);
  const values = { userId: ctx.userId, tag: input.tag, limit: input.size, offset: (input.page - 1) * input.size };
  // Two reads, no transaction: the counter is kept by triggers in the writes' own transactions, so
  // a page and its total can differ only by a write landing in between.
  const [rows, count] = input.tag === undefined
    ? await Promise.all([reads.rows(page, values), reads.row(total, values)])
    : await Promise.all([reads.rows(tagPage, values), reads.row(tagTotal, values)]);
  return pageOf(rows.map(([row]) => toNoteListItem(listRow.unpack(row as string))), Number(count?.[0] ?? 0), input);
}

/**
 * A search: by words and meaning fused (`hybrid`, the default once embeddings are set up), by
 * meaning alone, or by words; meaning that is not available now (see searchByMeaning) falls back to
 * words, and the envelope's `mode` says which answered.
 */
async function searchNoteList({ ctx, input }: { ctx: ListContext; input: z.infer<typeof listNotesInput> & { q: string } }): Promise<NotePage> {
  const wanted = input.mode ?? (ctx.semantic ? "hybrid" : "lexical");
  if (wanted !== "lexical") {
    const meaning = await searchByMeaning(ctx, { q: input.q, tag: input.tag, page: input.page, size: input.size, mode: wanted });
    if (meaning) return meaningPage(ctx, input, meaning);
  }
  const found = await searchNotes(ctx.db, { userId: ctx.userId, q: input.q, tag: input.tag, page: input.page, size: input.size });
  const offset = (input.page - 1) * input.size;
  const [rows, snippets] = await Promise.all([
    found.noteIds.length === 0
      ? []
      : ctx.db.select(listColumns).from(notes).where(and(eq(notes.userId, ctx.userId), inArray(notes.id, found.noteIds))),
    noteSnippets(ctx.db, found.noteIds, found.terms),
  ]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const items = found.noteIds.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    const { text, highlights } = snippets.get(id) ?? { text: row.excerpt, highlights: [] };
    const rank = offset + found.noteIds.indexOf(id) + 1;
    return [{ ...toNoteListItem(row), snippet: text, highlights, score: roundScore(1 / (RRF_K + rank)) }];
  });
  return { ...pageOf(items, found.total, input), mode: "lexical" };
}

/** A page found with meaning: snippets around the words where the words matched, else the passage nearest the query. */
async function meaningPage(ctx: ListContext, input: { page: number; size: number }, found: MeaningSearch): Promise<NotePage> {
  const ids = found.page.map((note) => note.noteId);
  const byWords = found.page.filter((note) => note.lexicalRank !== null).map((note) => note.noteId);
  const [rows, snippets] = await Promise.all([
    ids.length === 0 ? [] : ctx.db.select({ ...listColumns, content: notes.content }).from(notes).where(and(eq(notes.userId, ctx.userId), inArray(notes.id, ids))),
    noteSnippets(ctx.db, byWords, found.terms),
  ]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const items = found.page.flatMap((note) => {
    const row = byId.get(note.noteId);
    if (!row) return [];
    const snippet = snippets.get(note.noteId);
    const passage = note.meaning?.passage;
    const text = snippet?.text ?? (passage ? truncateText(row.content.slice(passage.start, passage.end).replace(/\s+/g, " ").trim(), 240) : row.excerpt);
    const { content: _content, ...listed } = row;
    return [{ ...toNoteListItem(listed), snippet: text, highlights: snippet?.highlights ?? [], score: roundScore(note.score) }];
  });
  return { ...pageOf(items, found.total, input), mode: found.mode };
}

function roundScore(score: number): number {
  return Math.round(score * 1e6) / 1e6;
}
