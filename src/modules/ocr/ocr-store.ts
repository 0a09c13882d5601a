import { and, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { files, importTasks, notes, ocrNotes, ocrTexts } from "../../db/schema";

export interface KeptText {
  lines: string[];
  unreadable: string | null;
}

/** What was read in each of these pictures before, by SHA-256 (those never read are missing). */
export async function keptTexts(db: Database, hashes: string[]): Promise<Map<string, KeptText>> {
  if (hashes.length === 0) return new Map();
  const rows = await db.select().from(ocrTexts).where(inArray(ocrTexts.sha256, hashes));
  return new Map(rows.map((row) => [row.sha256, { lines: row.text === "" ? [] : row.text.split("\n"), unreadable: row.unreadable }]));
}

export async function keepText(db: Database, sha256: string, text: KeptText): Promise<void> {
  await db
    .insert(ocrTexts)
    .values({ sha256, text: text.lines.join("\n"), unreadable: text.unreadable, createdAt: Date.now() })
    .onConflictDoNothing();
}

/** The user's stored images among these file ids (another user's id, or a deleted file, is not one). */
export async function ownPictures(db: Database, userId: number, fileIds: number[]): Promise<Map<number, { sha256: string }>> {
  if (fileIds.length === 0) return new Map();
  const rows = await db
    .select({ id: files.id, sha256: files.sha256, mime: files.mime })
    .from(files)
    .where(and(eq(files.userId, userId), inArray(files.id, fileIds)));
  return new Map(rows.filter((row) => row.mime.startsWith("image/")).map((row) => [row.id, { sha256: row.sha256 }]));
}

/** The note as it stands, or null when it is gone (deleted, or not the user's). */
export async function currentNote(db: Database, userId: number, noteId: number) {
  const [row] = await db
    .select({ content: notes.content, updatedAt: notes.updatedAt, writtenBy: notes.writtenBy, sourcePlatform: notes.sourcePlatform })
    .from(notes)
    .where(and(eq(notes.id, noteId), eq(notes.userId, userId)));
  return row ?? null;
}

/** The note's content when it refers to a stored file at all (the cheap test a note write pays), else null. */
export async function contentWithFiles(db: Database, userId: number, noteId: number): Promise<string | null> {
  const [row] = await db
    .select({ content: notes.content })
    .from(notes)
    .where(and(eq(notes.id, noteId), eq(notes.userId, userId), sql`instr(${notes.content}, '/api/files/') > 0`));
  return row?.content ?? null;
}

/** The files whose text the note has been given. */
export async function givenPictures(db: Database, noteId: number): Promise<Set<number>> {
  const [row] = await db.select({ fileIds: ocrNotes.fileIds }).from(ocrNotes).where(eq(ocrNotes.noteId, noteId));
  return new Set(row ? (JSON.parse(row.fileIds) as number[]) : []);
}

/** Records that the note has been given these files' text (nothing when the note is gone meanwhile). */
export async function recordGiven(db: Database, noteId: number, fileIds: Iterable<number>): Promise<void> {
  const ids = JSON.stringify([...new Set(fileIds)].sort((a, b) => a - b));
  await db.run(sql`insert into ${ocrNotes} (note_id, file_ids, updated_at)
    select ${noteId}, ${ids}, ${Date.now()} where exists (select 1 from ${notes} where id = ${noteId})
    on conflict (note_id) do update set file_ids = excluded.file_ids, updated_at = excluded.updated_at`);
}

/** When the user's archive import task was created; null for another kind of task (or none). */
export async function archiveTaskCreatedAt(db: Database, userId: number, taskId: number): Promise<number | null> {
  const [row] = await db
    .select({ createdAt: importTasks.createdAt })
    .from(importTasks)
    .where(and(eq(importTasks.id, taskId), eq(importTasks.userId, userId), eq(importTasks.platform, "archive")));
  return row?.createdAt ?? null;
}

/** The user's notes written since `since` that refer to a stored file. */
export async function notesWithFilesSince(db: Database, userId: number, since: number): Promise<number[]> {
  const rows = await db
    .select({ id: notes.id })
    .from(notes)
    .where(and(eq(notes.userId, userId), sql`${notes.updatedAt} >= ${since}`, sql`instr(${notes.content}, '/api/files/') > 0`));
  return rows.map((row) => row.id);
}

/** Forgets the text of pictures no user stores any more (a deleted account's, a purged note's). */
export async function forgetUnstoredTexts(db: Database): Promise<number> {
  const result = await db.run(sql`delete from ${ocrTexts} where sha256 not in (select sha256 from ${files})`);
  return result.rowsAffected;
}
