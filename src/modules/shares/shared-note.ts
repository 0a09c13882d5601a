import { and, eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { files, notes, shareLinks } from "../../db/schema";
import { SHARE_TOKEN } from "./manage-shares";

export interface SharedNote {
  userId: number;
  token: string;
  title: string;
  content: string;
  updatedAt: number;
}

/**
 * The note behind a link, as it is now; null for anything the page must answer 404 to: a token
 * that is malformed, unknown, revoked or expired, or a note in the trash (it is no longer in `notes`).
 */
export async function findSharedNote(db: Database, token: string, now = Date.now()): Promise<SharedNote | null> {
  if (!SHARE_TOKEN.test(token)) return null;
  const [row] = await db
    .select({ userId: shareLinks.userId, expiresAt: shareLinks.expiresAt, title: notes.title, content: notes.content, updatedAt: notes.updatedAt })
    .from(shareLinks)
    .innerJoin(notes, and(eq(notes.id, shareLinks.noteId), eq(notes.userId, shareLinks.userId)))
    .where(eq(shareLinks.token, token));
  if (!row || (row.expiresAt !== null && row.expiresAt <= now)) return null;
  return { userId: row.userId, token, title: row.title, content: row.content, updatedAt: row.updatedAt };
}

/** `/api/files/{id}` links in the note's text: the only stored files its link may serve. */
export function referencedFileIds(content: string): Set<number> {
  return new Set([...content.matchAll(/\/api\/files\/([1-9]\d{0,15})(?!\d)/g)].map((match) => Number(match[1])));
}

/** A stored file the shared note shows, or null (another file of the owner's is not shared). */
export async function findSharedFile(db: Database, note: SharedNote, fileId: number) {
  if (!referencedFileIds(note.content).has(fileId)) return null;
  const [row] = await db.select().from(files).where(and(eq(files.id, fileId), eq(files.userId, note.userId)));
  return row ?? null;
}

/** The note's own links to stored files, pointed at the share's copies (`/s/<token>/files/<id>`). */
export function shareFileUrl(token: string, href: string): string {
  const match = /^\/api\/files\/([1-9]\d{0,15})$/.exec(href);
  return match ? `/s/${token}/files/${match[1]}` : href;
}
