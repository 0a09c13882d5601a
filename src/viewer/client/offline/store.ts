// The app's IndexedDB (through `idb`), shared by the page and its service worker: the login kept on
// this device, the outbox of shares and offline writes waiting to be sent, and the notes already
// seen, readable without a network. One database per origin; every record of an account carries its
// user id, and logging out clears them.
import { openDB, type DBSchema, type IDBPDatabase } from "idb";
import type { User } from "../types";

/** Something shared to the app (POST /share), as the share sheet gave it. */
export interface SharedItem {
  title: string;
  text: string;
  url: string;
  files: File[];
}

/** A note saved while offline: sent with `expected_updated_at` once online. */
export interface OfflineNoteSave {
  /** null: a note created offline. */
  noteId: number | null;
  title: string;
  content: string;
  tags: string[];
  expectedUpdatedAt: string | null;
}

export type OutboxItem =
  | { id?: number; kind: "share"; createdAt: number; share: SharedItem }
  | { id?: number; kind: "note"; createdAt: number; userId: number; note: OfflineNoteSave };

export interface SeenNote {
  userId: number;
  id: number;
  title: string;
  content: string | null;
  tags: string[];
  excerpt: string;
  created_at: string;
  updated_at: string;
  source: unknown;
}

interface AppSchema extends DBSchema {
  /** "login": the token kept on this device; "user": the account last seen, under its token's SHA-256. */
  kept: { key: string; value: { token: string; user?: User } };
  outbox: { key: number; value: OutboxItem };
  notes: { key: [number, number]; value: SeenNote; indexes: { byUserUpdated: [number, string] } };
}

let database: Promise<IDBPDatabase<AppSchema>> | null = null;

export function appDatabase(): Promise<IDBPDatabase<AppSchema>> {
  database ??= openDB<AppSchema>("rhizome", 1, {
    upgrade(db) {
      db.createObjectStore("kept");
      db.createObjectStore("outbox", { keyPath: "id", autoIncrement: true });
      db.createObjectStore("notes", { keyPath: ["userId", "id"] }).createIndex("byUserUpdated", ["userId", "updated_at"]);
    },
    terminated() {
      database = null;
    },
  });
  return database;
}

export async function addToOutbox(item: OutboxItem): Promise<number> {
  return (await appDatabase()).add("outbox", item);
}

/**
 * A note saved offline, into the outbox. Saving the same note again offline replaces its waiting
 * save (keeping the `expected_updated_at` first read), so one PUT goes when back online.
 */
export async function queueNoteSave(userId: number, note: OfflineNoteSave, replacing: number | null): Promise<number> {
  const db = await appDatabase();
  const tx = db.transaction("outbox", "readwrite");
  const waiting = (await tx.store.getAll()).find((item) => item.kind === "note" && item.userId === userId && (item.id === replacing || (note.noteId !== null && item.note.noteId === note.noteId)));
  const id = await tx.store.put(waiting?.kind === "note" ? { ...waiting, note: { ...note, expectedUpdatedAt: waiting.note.expectedUpdatedAt } } : { kind: "note", createdAt: Date.now(), userId, note });
  await tx.done;
  return id;
}

/** The account's offline note saves still waiting, oldest first. */
export async function waitingNoteSaves(userId: number): Promise<(OfflineNoteSave & { outboxId: number })[]> {
  try {
    const items = await (await appDatabase()).getAll("outbox");
    return items.flatMap((item) => (item.kind === "note" && item.userId === userId ? [{ ...item.note, outboxId: item.id! }] : []));
  } catch {
    return [];
  }
}
