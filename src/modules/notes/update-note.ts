import { and, eq, sql } from "drizzle-orm";
import type { z } from "zod";
import { notes } from "../../db/schema";
import type { Database } from "../../db/client";
import { batchStep, preparedPerDatabase, runBatch } from "../../db/prepared";
import { readStatements } from "../../db/read-statements";
import { InvalidInputError, NotFoundError, UnavailableError } from "../errors";
import { editedNoteEntrySteps } from "../search/index-notes";
import { searchDocument } from "../search/search-document";
import { excerptOfPlainText } from "./excerpt";
import { nextUpdatedAt, noteColumns, toNoteRecord } from "./note-record";
import type { NoteRecord, updateNoteInput } from "./schemas";

/** Past this many writes by others between one read and its write, the edit gives up (a 503, retry later). */
const MAX_ATTEMPTS = 20;

// `set` takes SQL, not a bare placeholder.
const value = (name: string) => sql`${sql.placeholder(name)}`;

const statements = preparedPerDatabase((db) => {
  const owned = and(eq(notes.id, sql.placeholder("id")), eq(notes.userId, sql.placeholder("userId")));
  return {
    stored: db
      .select({ title: notes.title, content: notes.content, excerpt: notes.excerpt, tags: notes.tags, updatedAt: notes.updatedAt })
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
      })
      .where(and(owned, eq(notes.updatedAt, sql.placeholder("readUpdatedAt"))))
      .returning({ ...noteColumns, content: notes.content })
      .prepare(),
  };
});

/**
 * Partial update: omitted fields keep their value. The stored note is read, the edit applied to it
 * (the search entry is built from the whole note), and the note and its entry written in one
 * batch that holds only if no one wrote the note since the read; otherwise it is read again.
 */
export async function updateNote({ ctx, input }: { ctx: { db: Database; userId: number }; input: z.infer<typeof updateNoteInput> }): Promise<NoteRecord> {
  const { id, title, content, tags } = input;
  if (title === undefined && content === undefined && tags === undefined) {
    throw new InvalidInputError("Nothing to update: give at least one of title, content, tags");
  }
  const { stored, update } = statements(ctx.db);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await readStatements(ctx.db).get(stored, { id, userId: ctx.userId });
    if (!current) throw new NotFoundError(`Note ${id}`);
    const note = {
      id,
      title: title ?? current.title,
      content: content ?? current.content,
      tags: tags === undefined ? current.tags : JSON.stringify(tags),
    };
    const document = searchDocument({ userId: ctx.userId, title: note.title, content: note.content, tags: tags ?? (JSON.parse(current.tags) as string[]) });
    const excerpt = content === undefined ? current.excerpt : excerptOfPlainText(content, document.text);
    const [[written]] = await runBatch(ctx.db, "write", [
      batchStep(update, { ...note, excerpt, userId: ctx.userId, updatedAt: nextUpdatedAt(current.updatedAt), readUpdatedAt: current.updatedAt }),
      ...editedNoteEntrySteps(ctx.db, note, document),
    ]);
    if (written) return toNoteRecord(written);
  }
  throw new UnavailableError(`Note ${id} is being changed by others too often; try again shortly`);
}
