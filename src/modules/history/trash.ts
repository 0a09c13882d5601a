import { and, asc, desc, eq, inArray, lte, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { fileReleases, importSources, notes, noteVersions, shareLinks, trashedNotes } from "../../db/schema";
import { NotFoundError } from "../errors";
import type { FileStorage } from "../files/blob-store";
import { referencedFileIds } from "../files/file-links";
import { removeNoteFromGraph } from "../graph/remove-note-from-graph";
import { getNote } from "../notes/get-note";
import type { NoteRecord } from "../notes/schemas";
import { noteEventData } from "../notes/note-record";
import { pageOf, type Page } from "../pagination";
import { historySettings } from "./settings";
import type { ChangePublisher } from "../events/change";
import { recordOlderVersionFiles, releaseUnshownFiles } from "./version-files";

type Ctx = { db: Database; userId: number; changes?: ChangePublisher };
const DAY_MS = 24 * 60 * 60 * 1000;

// The columns a note and its trashed row share, in one order for both directions of the move.
const COLUMNS = sql.raw(
  "id, user_id, title, content, excerpt, tags, created_at, updated_at, source_platform, source_url, source_author, source_published_at, written_by",
);

/**
 * DELETE /api/notes/{id}: the note moves to the trash in one transaction (its row, with its
 * re-import records, out of `notes`, so every list, search, export, question and the graph lose
 * it at once); its history and files stay until it is purged.
 */
export async function trashNote({ ctx, input, now = Date.now() }: { ctx: Ctx; input: { id: number }; now?: number }): Promise<void> {
  // libSQL opens it as a "write" transaction (BEGIN IMMEDIATE): no graph read sees the note half gone.
  await ctx.db.transaction(async (tx) => {
    await removeNoteFromGraph(tx, { userId: ctx.userId, noteId: input.id });
    const moved = await tx.run(sql`
      insert into ${trashedNotes} (${COLUMNS}, import_sources, deleted_at)
      select ${COLUMNS},
        (select coalesce(json_group_array(json_array(source_key, hash, note_updated_at)), '[]') from ${importSources} where note_id = ${input.id}),
        ${now}
      from ${notes} where id = ${input.id} and user_id = ${ctx.userId}`);
    if (moved.rowsAffected === 0) throw new NotFoundError(`Note ${input.id}`);
    await tx.delete(notes).where(and(eq(notes.id, input.id), eq(notes.userId, ctx.userId)));
  });
  await ctx.changes?.publish({ userId: ctx.userId, kind: "note", id: input.id, event: { type: "note.deleted" } });
}

export async function listTrash({ ctx, input }: { ctx: Ctx; input: { page: number; size: number } }) {
  const keepMs = historySettings(ctx.db).trashDays * DAY_MS;
  const mine = eq(trashedNotes.userId, ctx.userId);
  const [rows, [count]] = await Promise.all([
    ctx.db
      .select({ id: trashedNotes.id, title: trashedNotes.title, tags: trashedNotes.tags, excerpt: trashedNotes.excerpt, deletedAt: trashedNotes.deletedAt })
      .from(trashedNotes)
      .where(mine)
      .orderBy(desc(trashedNotes.deletedAt), desc(trashedNotes.id))
      .limit(input.size)
      .offset((input.page - 1) * input.size),
    ctx.db.select({ total: sql<number>`count(*)` }).from(trashedNotes).where(mine),
  ]);
  const items = rows.map((row) => ({
    id: row.id,
    title: row.title,
    tags: JSON.parse(row.tags) as string[],
    excerpt: row.excerpt,
    deleted_at: new Date(row.deletedAt).toISOString(),
    purge_at: new Date(row.deletedAt + keepMs).toISOString(),
  }));
  return pageOf(items, count!.total, input) satisfies Page<(typeof items)[number]>;
}

/** Brings a note back whole: same id, text, tags, dates, source, history and files; the graph picks it up at its next build. */
export async function restoreFromTrash({ ctx, input }: { ctx: Ctx; input: { id: number } }): Promise<NoteRecord> {
  await ctx.db.transaction(async (tx) => {
    const restored = await tx.run(sql`
      insert into ${notes} (${COLUMNS}) select ${COLUMNS} from ${trashedNotes} where id = ${input.id} and user_id = ${ctx.userId}`);
    if (restored.rowsAffected === 0) throw new NotFoundError(`Note ${input.id} in the trash`);
    // A source imported again while the note was away now names that newer note: it keeps it.
    await tx.run(sql`
      insert into ${importSources} (user_id, source_key, note_id, hash, note_updated_at)
      select ${ctx.userId}, value ->> 0, ${input.id}, value ->> 1, value ->> 2
      from ${trashedNotes}, json_each(${trashedNotes.importSources}) where ${trashedNotes.id} = ${input.id}
      on conflict (user_id, source_key) do nothing`);
    await tx.delete(trashedNotes).where(eq(trashedNotes.id, input.id));
  });
  const note = await getNote({ ctx, input });
  // Back from the trash: to other systems it is a note that appears again.
  await ctx.changes?.publish({ userId: ctx.userId, kind: "note", id: note.id, event: { type: "note.created", data: noteEventData(note) } });
  return note;
}

/** DELETE /api/trash/{id}: gone for good, with its history, its share links and the files nothing else shows. */
export async function purgeFromTrash({ ctx, input }: { ctx: Ctx & { files?: FileStorage }; input: { id: number } }): Promise<void> {
  const purged = await purgeNotes(ctx.db, ctx.files, ctx.userId, [input.id]);
  if (purged.length === 0) throw new NotFoundError(`Note ${input.id} in the trash`);
}

/** Notes purged per transaction when the trash is emptied: each a short write, whatever the trash holds. */
const EMPTY_BATCH = 50;

/** DELETE /api/trash: every note in the caller's trash purged as DELETE /api/trash/{id} purges one, a batch at a time. */
export async function emptyTrash({ ctx }: { ctx: Ctx & { files?: FileStorage } }): Promise<void> {
  for (;;) {
    const batch = await ctx.db
      .select({ id: trashedNotes.id })
      .from(trashedNotes)
      .where(eq(trashedNotes.userId, ctx.userId))
      .orderBy(asc(trashedNotes.id))
      .limit(EMPTY_BATCH);
    if (batch.length === 0) return;
    await purgeNotes(ctx.db, ctx.files, ctx.userId, batch.map((note) => note.id));
  }
}

/** The scheduled purge: every note in the trash longer than TRASH_DAYS. */
export async function purgeExpiredTrash(db: Database, files: FileStorage | undefined, now = Date.now()): Promise<number> {
  const cutoff = now - historySettings(db).trashDays * DAY_MS;
  let purged = 0;
  for (;;) {
    const batch = await db
      .select({ id: trashedNotes.id, userId: trashedNotes.userId })
      .from(trashedNotes)
      .where(lte(trashedNotes.deletedAt, cutoff))
      .orderBy(asc(trashedNotes.deletedAt))
      .limit(100);
    if (batch.length === 0) return purged;
    for (const note of batch) purged += (await purgeNotes(db, files, note.userId, [note.id])).length;
  }
}

/**
 * Deletes the user's notes `ids` from the trash with their versions and share links, in one
 * transaction; the files their texts and versions showed (queued in `file_releases`, the versions'
 * by their trigger) then go unless something else shows them. Returns the ids purged.
 */
async function purgeNotes(db: Database, files: FileStorage | undefined, userId: number, ids: number[]): Promise<number[]> {
  // Versions older than the record of their files are read first, or their files would never be let go.
  for (const id of ids) await recordOlderVersionFiles(db, userId, id);
  const purged = await db.transaction(async (tx) => {
    const rows = await tx
      .delete(trashedNotes)
      .where(and(inArray(trashedNotes.id, ids), eq(trashedNotes.userId, userId)))
      .returning({ id: trashedNotes.id, content: trashedNotes.content });
    if (rows.length === 0) return [];
    const gone = rows.map((row) => row.id);
    await tx.delete(noteVersions).where(inArray(noteVersions.noteId, gone));
    await tx.delete(shareLinks).where(inArray(shareLinks.noteId, gone));
    const shown = [...new Set(rows.flatMap((row) => referencedFileIds(row.content)))];
    if (shown.length > 0) {
      await tx.insert(fileReleases).values(shown.map((fileId) => ({ userId, fileId }))).onConflictDoNothing();
    }
    return gone;
  });
  if (purged.length > 0) await releaseUnshownFiles({ db, storage: files }, userId);
  return purged;
}
