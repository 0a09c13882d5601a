import { sql } from "drizzle-orm";
import type { z } from "zod";
import { notes } from "../../db/schema";
import type { Database } from "../../db/client";
import { batchStep, preparedPerDatabase, runBatch } from "../../db/prepared";
import { newNoteEntrySteps } from "../search/index-notes";
import { searchDocument } from "../search/search-document";
import { excerptOfPlainText, plainTextExcerpt } from "./excerpt";
import { noteEventData, toNoteRecord } from "./note-record";
import type { createNoteInput, NoteRecord, NoteSource } from "./schemas";
import type { Credential } from "../tokens/credential";
import { writtenBy } from "../history/record-version";
import { importWriter, writerOf, type Writer } from "../history/writer";
import type { ChangePublisher } from "../events/change";

const statements = preparedPerDatabase((db) => ({
  insert: db
    .insert(notes)
    // Each column's value is the field of the same name in `newNoteRow`'s row.
    .values({
      userId: sql.placeholder("userId"),
      title: sql.placeholder("title"),
      content: sql.placeholder("content"),
      excerpt: sql.placeholder("excerpt"),
      tags: sql.placeholder("tags"),
      sourcePlatform: sql.placeholder("sourcePlatform"),
      sourceUrl: sql.placeholder("sourceUrl"),
      sourceAuthor: sql.placeholder("sourceAuthor"),
      sourcePublishedAt: sql.placeholder("sourcePublishedAt"),
      createdAt: sql.placeholder("createdAt"),
      updatedAt: sql.placeholder("updatedAt"),
      writtenBy: sql.placeholder("writtenBy"),
    })
    .returning()
    .prepare(),
}));

/**
 * The note and its search entry in one write batch (one transaction); the tag index and counters
 * follow from triggers. The note's plain text is worked out once, for the entry and the excerpt.
 */
export async function createNote({
  ctx,
  input,
}: {
  ctx: { db: Database; userId: number; credential?: Credential; changes?: ChangePublisher };
  input: z.infer<typeof createNoteInput>;
}): Promise<NoteRecord> {
  const document = searchDocument({ userId: ctx.userId, ...input });
  const row = newNoteRow(ctx.userId, input, Date.now(), excerptOfPlainText(input.content, document.text), ctx.credential && writerOf(ctx.credential));
  const [[inserted]] = await runBatch(ctx.db, "write", [batchStep(statements(ctx.db).insert, row), ...newNoteEntrySteps(ctx.db, document)]);
  const note = toNoteRecord(inserted!);
  await ctx.changes?.publish({ userId: ctx.userId, kind: "note", id: note.id, event: { type: "note.created", data: noteEventData(note) } });
  return note;
}
/** The row of a new note from already-validated fields; only imports give a `source` (and are its writer unless told). */
export function newNoteRow(
  userId: number,
  input: { title: string; content: string; tags: string[]; source?: NoteSource },
  now = Date.now(),
  excerpt = plainTextExcerpt(input.content),
  writer?: Writer,
) {
  const source = input.source ?? null;
  return {
    userId,
    title: input.title,
    content: input.content,
    excerpt,
    tags: JSON.stringify(input.tags),
    sourcePlatform: source?.platform ?? null,
    sourceUrl: source?.url ?? null,
    sourceAuthor: source?.author ?? null,
    sourcePublishedAt: source?.published_at ? Date.parse(source.published_at) : null,
    createdAt: now,
    updatedAt: now,
    writtenBy: writer ? writtenBy(writer) : source ? writtenBy(importWriter(source.platform)) : null,
  };
}
