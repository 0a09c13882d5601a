import { and, eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { files, notes, shareLinks } from "../../db/schema";
import { referencedFileIds } from "../files/file-links";
import { SHARE_TOKEN } from "./manage-shares";

/** A link that works now, and the note behind it as it is now (its text is read apart: a cached page needs none). */
export interface SharedNote {
  userId: number;
  noteId: number;
  token: string;
  title: string;
  updatedAt: number;
}

export interface SharedText extends SharedNote {
  content: string;
}

/**
 * The note behind a link, as it is now; null for anything the page must answer 404 to: a token
 * that is malformed, unknown, revoked or expired, or a note in the trash (it is no longer in `notes`).
 */
export async function findSharedNote(db: Database, token: string, now = Date.now()): Promise<SharedNote | null> {
  if (!SHARE_TOKEN.test(token)) return null;
  const [row] = await db
    .select({ userId: shareLinks.userId, noteId: shareLinks.noteId, expiresAt: shareLinks.expiresAt, title: notes.title, updatedAt: notes.updatedAt })
    .from(shareLinks)
    .innerJoin(notes, and(eq(notes.id, shareLinks.noteId), eq(notes.userId, shareLinks.userId)))
    .where(eq(shareLinks.token, token));
  if (!row || (row.expiresAt !== null && row.expiresAt <= now)) return null;
  return { userId: row.userId, noteId: row.noteId, token, title: row.title, updatedAt: row.updatedAt };
}

/** The shared note with its text, read now (an edit since `findSharedNote` shows); null once it left for the trash. */
export async function readSharedText(db: Database, note: SharedNote): Promise<SharedText | null> {
  const [row] = await db
    .select({ title: notes.title, content: notes.content, updatedAt: notes.updatedAt })
    .from(notes)
    .where(and(eq(notes.id, note.noteId), eq(notes.userId, note.userId)));
  return row ? { ...note, ...row } : null;
}

/** A stored file the shared note shows (an `/api/files/{id}` link in its text), or null: another file of the owner's is not shared. */
export async function findSharedFile(db: Database, note: SharedText, fileId: number) {
  if (!referencedFileIds(note.content).includes(fileId)) return null;
  const [row] = await db.select().from(files).where(and(eq(files.id, fileId), eq(files.userId, note.userId)));
  return row ?? null;
}

/** The note's own links to stored files, pointed at the share's copies (`/s/<token>/files/<id>`). */
export function shareFileUrl(token: string, href: string): string {
  const match = /^\/api\/files\/([1-9]\d{0,15})$/.exec(href);
  return match ? `/s/${token}/files/${match[1]}` : href;
}
