import { and, asc, eq, inArray, isNull, notExists, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { fileReleases, files, notes, noteVersionFiles, trashedNotes, versionFilesBacklog } from "../../db/schema";
import { log } from "../../log";
import { removeBlob, type FileStorage } from "./blob-store";
import { referencedFileIds } from "./file-links";

type FileStore = { db: Database; storage?: FileStorage };
type Reader = Pick<Database, "select">;

/** Files looked at per pass over the queue: each is one short write transaction. */
const RELEASE_BATCH = 200;

/**
 * Works through `file_releases` (files a purged note or a pruned or purged version showed), for one
 * user or all: a file goes, row and then bytes, unless a note, a note in the trash or a kept
 * version of any of the user's notes still shows it (or an import still holds it as pending).
 * A user whose older versions are not read yet (`version_files_backlog`) is left for later.
 * Returns how many files went.
 */
export async function releaseFiles({ db, storage }: FileStore, userId?: number): Promise<number> {
  let released = 0;
  for (;;) {
    const queued = await db
      .select()
      .from(fileReleases)
      .where(
        and(
          userId === undefined ? undefined : eq(fileReleases.userId, userId),
          notExists(db.select({ one: sql`1` }).from(versionFilesBacklog).where(eq(versionFilesBacklog.userId, fileReleases.userId))),
        ),
      )
      .orderBy(asc(fileReleases.userId), asc(fileReleases.fileId))
      .limit(RELEASE_BATCH);
    if (queued.length === 0) return released;
    const hashes: string[] = [];
    for (const { userId: owner, fileId } of queued) {
      const dequeue = and(eq(fileReleases.userId, owner), eq(fileReleases.fileId, fileId));
      // Most files are still shown somewhere: that is read without holding up writers.
      if ((await keptFileIds(db, owner, [fileId])).size > 0) {
        await db.delete(fileReleases).where(dequeue);
        continue;
      }
      // Checked again and deleted in one write transaction: a note written meanwhile that shows the file is seen, or waits.
      const sha256 = await db.transaction(
        async (tx) => {
          await tx.delete(fileReleases).where(dequeue);
          if ((await keptFileIds(tx, owner, [fileId])).size > 0) return null;
          const [gone] = await tx
            .delete(files)
            .where(and(eq(files.id, fileId), eq(files.userId, owner), isNull(files.pendingTaskId)))
            .returning({ sha256: files.sha256 });
          return gone?.sha256 ?? null;
        },
        { behavior: "immediate" },
      );
      if (sha256) hashes.push(sha256);
    }
    released += hashes.length;
    await removeUnclaimedBlobs({ db, storage }, hashes);
  }
}

/**
 * Those of `ids` something of the user's still shows: a note's text, a note's in the trash, or a
 * kept version of either.
 */
async function keptFileIds(db: Reader, userId: number, ids: number[]): Promise<Set<number>> {
  const kept = new Set<number>();
  for (const id of ids) {
    const [byVersion] = await db
      .select({ id: noteVersionFiles.fileId })
      .from(noteVersionFiles)
      .where(and(eq(noteVersionFiles.userId, userId), eq(noteVersionFiles.fileId, id)))
      .limit(1);
    if (byVersion) {
      kept.add(id);
      continue;
    }
    // instr narrows to texts naming the path; the regex then rules out /api/files/12 for 1.
    const path = `/api/files/${id}`;
    const texts = [
      ...(await db.select({ content: notes.content }).from(notes).where(and(eq(notes.userId, userId), sql`instr(${notes.content}, ${path}) > 0`))),
      ...(await db.select({ content: trashedNotes.content }).from(trashedNotes).where(and(eq(trashedNotes.userId, userId), sql`instr(${trashedNotes.content}, ${path}) > 0`))),
    ];
    if (texts.some((text) => referencedFileIds(text.content).includes(id))) kept.add(id);
  }
  return kept;
}

/** Removes the bytes of each hash no row (of any user) claims any more. */
export async function removeUnclaimedBlobs({ db, storage }: FileStore, hashes: string[]): Promise<void> {
  if (!storage) return;
  for (const sha256 of new Set(hashes)) {
    // Checked and removed inside a write transaction: a row claiming the bytes is written either
    // before (and seen here) or after (and its writer puts the bytes back, see recordFiles).
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
export async function releasePendingFiles({ db, storage }: FileStore, taskId: number): Promise<void> {
  const pending = await db.select({ id: files.id, userId: files.userId }).from(files).where(eq(files.pendingTaskId, taskId));
  if (pending.length === 0) return;
  // Another import of the user may have written a note naming one of them meanwhile: that one stays.
  const kept = await keptFileIds(db, pending[0]!.userId, pending.map((row) => row.id));
  const unreferenced = pending.map((row) => row.id).filter((id) => !kept.has(id));
  if (unreferenced.length === 0) return;
  const deleted = await db
    .delete(files)
    .where(and(eq(files.pendingTaskId, taskId), inArray(files.id, unreferenced)))
    .returning({ sha256: files.sha256 });
  await removeUnclaimedBlobs({ db, storage }, deleted.map((row) => row.sha256));
}
