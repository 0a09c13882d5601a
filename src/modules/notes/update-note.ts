import { and, eq, sql } from "drizzle-orm";
import type { z } from "zod";
import { notes } from "../../db/schema";
import type { Database } from "../../db/client";
import { batchStep, preparedPerDatabase, runBatch } from "../../db/prepared";
import { readStatements } from "../../db/read-statements";
import { ConflictError, InvalidInputError, NotFoundError, UnavailableError } from "../errors";
import { editedNoteEntrySteps } from "../search/index-notes";
import { searchDocument } from "../search/search-document";
import { excerptOfPlainText } from "./excerpt";
import { nextUpdatedAt, noteColumns, noteEventData, toNoteRecord } from "./note-record";
import type { NoteRecord, updateNoteInput } from "./schemas";
import type { Credential } from "../tokens/credential";
import { versionSteps, writtenBy } from "../history/record-version";
import { writerOf, type Writer } from "../history/writer";
import type { ChangePublisher } from "../events/change";

/** Past this many writes by others between one read and its write, the edit gives up (a 503, retry later). */
const MAX_ATTEMPTS = 20;

// `set` takes SQL, not a bare placeholder.
const value = (name: string) => sql`${sql.placeholder(name)}`;

const statements = preparedPerDatabase((db) => {
  const owned = and(eq(notes.id, sql.placeholder("id")), eq(notes.userId, sql.placeholder("userId")));
  return {
    stored: db
      .select({
        title: notes.title,
        content: notes.content,
        excerpt: notes.excerpt,
        tags: notes.tags,
        updatedAt: notes.updatedAt,
        writtenBy: notes.writtenBy,
        sourcePlatform: notes.sourcePlatform,
      })
      .from(notes)
      .where(owned)
      .prepare(),
    // Written only while the note is as it was read: `updated_at` moves on every write (nextUpdatedAt).
    update: db
      .update(notes)
      .set({
        title: value("title"),
        content: value("content"),
        excerpt: value("excerpt"),
        tags: value("tags"),
        updatedAt: value("updatedAt"),
        writtenBy: value("writtenBy"),
      })
      .where(and(owned, eq(notes.updatedAt, sql.placeholder("readUpdatedAt"))))
      .returning({ ...noteColumns, content: notes.content })
      .prepare(),
  };
});

/** Whoever calls without a credential (tests, benchmarks) writes as an anonymous session that never coalesces. */
const UNNAMED: Writer = { kind: "session", name: null, key: null };

/**
 * Partial update: omitted fields keep their value. The stored note is read, the edit applied to it
 * (the search entry is built from the whole note), and the note, its entry and the version it
 * replaces written in one batch that holds only if no one wrote the note since the read;
 * otherwise it is read again. With `expected_updated_at`, a note changed since that time is a
 * ConflictError and nothing is written.
 */
export async function updateNote({
  ctx,
  input,
  writer = ctx.credential ? writerOf(ctx.credential) : UNNAMED,
}: {
  ctx: { db: Database; userId: number; credential?: Credential; changes?: ChangePublisher };
  input: z.infer<typeof updateNoteInput>;
  /** Who the replaced text's successor is put down to; the caller's credential unless a restore says otherwise. */
  writer?: Writer;
}): Promise<NoteRecord> {
  const { id, title, content, tags } = input;
  const expected = input.expected_updated_at === undefined ? undefined : Date.parse(input.expected_updated_at);
  if (title === undefined && content === undefined && tags === undefined) {
    throw new InvalidInputError("Nothing to update: give at least one of title, content, tags");
  }
  const { stored, update } = statements(ctx.db);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await readStatements(ctx.db).get(stored, { id, userId: ctx.userId });
    if (!current) throw new NotFoundError(`Note ${id}`);
    // Checked on every read: a write by someone else between this read and ours is a conflict too.
    if (expected !== undefined && current.updatedAt !== expected) {
      throw new ConflictError(
        `Note ${id} was changed at ${new Date(current.updatedAt).toISOString()}, after the version you edited (${input.expected_updated_at}); read it again, or save without expected_updated_at to keep yours`,
      );
    }
    const note = {
      id,
      title: title ?? current.title,
      content: content ?? current.content,
      tags: tags === undefined ? current.tags : JSON.stringify(tags),
    };
    const document = searchDocument({ userId: ctx.userId, title: note.title, content: note.content, tags: tags ?? (JSON.parse(current.tags) as string[]) });
    const excerpt = content === undefined ? current.excerpt : excerptOfPlainText(content, document.text);
    const updatedAt = nextUpdatedAt(current.updatedAt);
    const versions = await versionSteps(ctx.db, { noteId: id, userId: ctx.userId, stored: current, next: note, writer, updatedAt });
    // Rewriting the same text changes nothing of its history: the writer stays who wrote it.
    const author = versions.length > 0 ? writtenBy(writer) : current.writtenBy;
    const [[written]] = await runBatch(ctx.db, "write", [
      batchStep(update, { ...note, excerpt, userId: ctx.userId, updatedAt, readUpdatedAt: current.updatedAt, writtenBy: author }),
      ...editedNoteEntrySteps(ctx.db, note, document),
      ...versions,
    ]);
    if (written) {
      const record = toNoteRecord(written);
      await ctx.changes?.publish({ userId: ctx.userId, kind: "note", id, event: { type: "note.updated", data: noteEventData(record) } });
      return record;
    }
  }
  throw new UnavailableError(`Note ${id} is being changed by others too often; try again shortly`);
}
