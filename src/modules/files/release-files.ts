import { and, eq, inArray, isNull, ne, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { files, notes, trashedNotes } from "../../db/schema";
import { log } from "../../log";
import { removeBlob, type FileStorage } from "./blob-store";
import { referencedFileIds } from "./file-links";

/**
 * After a note is purged from the trash: deletes the files its content referred to that no other
 * note of the user refers to, in the notes or in the trash (files still pending for a running
 * import are left to that import), then the bytes of those no user keeps any more.
 */
export async function releaseFilesOfPurgedNote(
  { db, storage }: { db: Database; storage?: FileStorage },
  input: { userId: number; noteId: number; content: string },
): Promise<void> {
  const unreferenced = await notReferencedByNotes(db, input.userId, referencedFileIds(input.content), input.noteId);
  if (unreferenced.length === 0) return;
  const deleted = await db
    .delete(files)
    .where(and(eq(files.userId, input.userId), inArray(files.id, unreferenced), isNull(files.pendingTaskId)))
    .returning({ sha256: files.sha256 });
  await removeUnclaimedBlobs({ db, storage }, deleted.map((row) => row.sha256));
}

/** Those of `ids` that no note of the user (but `exceptNoteId`) refers to. */
async function notReferencedByNotes(db: Database, userId: number, ids: number[], exceptNoteId = 0): Promise<number[]> {
  const unreferenced: number[] = [];
  for (const id of ids) {
    // instr narrows to notes naming the path; the regex then rules out /api/files/12 for 1.
    const others = await db
      .select({ content: notes.content })
      .from(notes)
      .where(and(eq(notes.userId, userId), ne(notes.id, exceptNoteId), sql`instr(${notes.content}, ${`/api/files/${id}`}) > 0`));
    // Notes in the trash keep their files until they are purged.
    const trashed = await db
      .select({ content: trashedNotes.content })
      .from(trashedNotes)
      .where(and(eq(trashedNotes.userId, userId), ne(trashedNotes.id, exceptNoteId), sql`instr(${trashedNotes.content}, ${`/api/files/${id}`}) > 0`));
    if (![...others, ...trashed].some((other) => referencedFileIds(other.content).includes(id))) unreferenced.push(id);
  }
  return unreferenced;
}

/** Removes the bytes of each hash no row (of any user) claims any more. */
export async function removeUnclaimedBlobs({ db, storage }: { db: Database; storage?: FileStorage }, hashes: string[]): Promise<void> {
  if (!storage) return;
  for (const sha256 of new Set(hashes)) {
    // Checked and removed inside a write transaction: a row claiming the bytes is written either
    // before (and seen here) or after (and its writer puts the bytes back, see recordImages).
    await db.transaction(async (tx) => {
      const [claimed] = await tx.select({ id: files.id }).from(files).where(eq(files.sha256, sha256)).limit(1);
      if (claimed) return;
      try {
        removeBlob(storage.dir, sha256);
      } catch (error) {
        log.warn(`could not remove stored file ${sha256}`, error);
      }
    }, { behavior: "immediate" });
  }
}

/** An import that ended without its note: its pending files go (a retry stores them again). */
export async function releasePendingFiles({ db, storage }: { db: Database; storage?: FileStorage }, taskId: number): Promise<void> {
  const pending = await db.select({ id: files.id, userId: files.userId }).from(files).where(eq(files.pendingTaskId, taskId));
  if (pending.length === 0) return;
  // Another import of the user may have written a note naming one of them meanwhile: that one stays.
  const unreferenced = await notReferencedByNotes(db, pending[0]!.userId, pending.map((row) => row.id));
  if (unreferenced.length === 0) return;
  const deleted = await db
    .delete(files)
    .where(and(eq(files.pendingTaskId, taskId), inArray(files.id, unreferenced)))
    .returning({ sha256: files.sha256 });
  await removeUnclaimedBlobs({ db, storage }, deleted.map((row) => row.sha256));
}
