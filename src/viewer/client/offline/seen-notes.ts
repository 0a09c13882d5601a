// The notes this device has listed or opened — the newest 200 of the account — kept in IndexedDB so
// the app still reads them without a network. A listed note keeps its excerpt until it is opened
// (or fetched while the page is idle); an opened one keeps its text. Logging out clears them.
import type { Note, NoteListItem } from "../types";
import { appDatabase, type SeenNote } from "./store";

export const KEPT_NOTES = 200;

/** Notes just listed: their list fields, keeping any text already held for the same version. */
export async function rememberListed(userId: number, items: NoteListItem[]): Promise<void> {
  if (items.length === 0) return;
  await write(async (db) => {
    const tx = db.transaction("notes", "readwrite");
    for (const item of items) {
      const held = await tx.store.get([userId, item.id]);
      const content = held && held.updated_at === item.updated_at ? held.content : null;
      await tx.store.put({ userId, id: item.id, title: item.title, tags: item.tags, excerpt: item.excerpt, updated_at: item.updated_at, created_at: held?.created_at ?? item.updated_at, content, source: held?.source ?? null });
    }
    await tx.done;
  }, userId);
}

/** A note just opened, saved or written offline: all of it. */
export async function rememberNote(userId: number, note: Note): Promise<void> {
  await write(async (db) => {
    await db.put("notes", { userId, id: note.id, title: note.title, tags: note.tags, excerpt: excerptOf(note.content), content: note.content, created_at: note.created_at, updated_at: note.updated_at, source: note.source ?? null });
  }, userId);
}

export async function forgetNote(userId: number, id: number): Promise<void> {
  await write((db) => db.delete("notes", [userId, id]), null);
}

export async function seenNote(userId: number, id: number): Promise<SeenNote | undefined> {
  try {
    return await (await appDatabase()).get("notes", [userId, id]);
  } catch {
    return undefined;
  }
}

/** The kept notes, newest first, narrowed as `Notes` would be (tag exactly; words in title, tags or text). */
export async function seenNotes(userId: number, filter: { tag: string | null; q: string }): Promise<SeenNote[]> {
  let all: SeenNote[];
  try {
    all = await (await appDatabase()).getAllFromIndex("notes", "byUserUpdated", IDBKeyRange.bound([userId, ""], [userId, "\uffff"]));
  } catch {
    return [];
  }
  const words = filter.q.toLowerCase().split(/\s+/).filter(Boolean);
  return all
    .reverse()
    .filter((note) => !filter.tag || note.tags.includes(filter.tag))
    .filter((note) => words.every((word) => `${note.title}\n${note.tags.join(" ")}\n${note.content ?? note.excerpt}`.toLowerCase().includes(word)));
}

/** The listed notes whose text is not held yet, newest first: the idle fetcher's work. */
export async function notesWithoutText(userId: number, limit: number): Promise<number[]> {
  const all = await seenNotes(userId, { tag: null, q: "" });
  return all.filter((note) => note.content === null).slice(0, limit).map((note) => note.id);
}

export async function forgetAllNotes(): Promise<void> {
  await write((db) => db.clear("notes"), null);
}

type Database = Awaited<ReturnType<typeof appDatabase>>;

/** A change, then the account's oldest beyond 200 let go. Failures are swallowed: offline reading is a convenience. */
async function write(change: (db: Database) => Promise<unknown>, userId: number | null): Promise<void> {
  try {
    const db = await appDatabase();
    await change(db);
    if (userId === null) return;
    const keys = await db.getAllKeysFromIndex("notes", "byUserUpdated", IDBKeyRange.bound([userId, ""], [userId, "\uffff"]));
    const extra = keys.length - KEPT_NOTES;
    if (extra > 0) {
      const tx = db.transaction("notes", "readwrite");
      for (const key of keys.slice(0, extra)) await tx.store.delete(key);
      await tx.done;
    }
  } catch {
    // A full or refused IndexedDB: the app goes on without keeping the note.
  }
}

function excerptOf(content: string): string {
  return content.replace(/[#*_`>[\]()!|-]+/g, " ").replace(/\s+/g, " ").trim().slice(0, 200);
}
