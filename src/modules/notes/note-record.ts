import { notes } from "../../db/schema";
import type { NoteListItem, NoteRecord, NoteSource } from "./schemas";

/** The columns every answer about a note reads, but its content and excerpt (read where needed). */
export const noteColumns = {
  id: notes.id,
  title: notes.title,
  tags: notes.tags,
  sourcePlatform: notes.sourcePlatform,
  sourceUrl: notes.sourceUrl,
  sourceAuthor: notes.sourceAuthor,
  sourcePublishedAt: notes.sourcePublishedAt,
  createdAt: notes.createdAt,
  updatedAt: notes.updatedAt,
};

type NoteRow = typeof notes.$inferSelect;
type SourceColumns = Pick<NoteRow, "sourcePlatform" | "sourceUrl" | "sourceAuthor" | "sourcePublishedAt">;

export function toNoteRecord(row: Omit<NoteRow, "userId" | "excerpt" | "writtenBy">): NoteRecord {
  return {
    id: row.id,
    title: row.title,
    content: row.content,
    tags: JSON.parse(row.tags) as string[],
    source: toNoteSource(row),
    created_at: new Date(row.createdAt).toISOString(),
    updated_at: new Date(row.updatedAt).toISOString(),
  };
}

export function toNoteListItem(row: Omit<NoteRow, "content" | "userId" | "writtenBy">): NoteListItem {
  return {
    id: row.id,
    title: row.title,
    tags: JSON.parse(row.tags) as string[],
    excerpt: row.excerpt,
    source: toNoteSource(row),
    created_at: new Date(row.createdAt).toISOString(),
    updated_at: new Date(row.updatedAt).toISOString(),
  };
}

/** Null for a note written here: only imports set the platform. */
export function toNoteSource(row: SourceColumns): NoteSource {
  if (row.sourcePlatform === null) return null;
  return {
    platform: row.sourcePlatform,
    url: row.sourceUrl,
    author: row.sourceAuthor,
    published_at: row.sourcePublishedAt === null ? null : new Date(row.sourcePublishedAt).toISOString(),
  };
}

/**
 * A note's new `updated_at` when its text is written: now, but always past the stored one, so
 * every write moves it and a compare-and-set on it (an edit, a re-import) sees any write since its
 * read, even one in the same millisecond or after the clock stepped back.
 */
export function nextUpdatedAt(stored: number, now = Date.now()): number {
  return Math.max(now, stored + 1);
}

/** What a note event carries: the note record without its content (nor excerpt or snippet). */
export function noteEventData(note: Omit<NoteRecord, "content"> & { content?: string }): Record<string, unknown> {
  const { content: _content, ...rest } = note;
  return rest;
}
