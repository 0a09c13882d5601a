import { and, desc, eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { fileReleases, notes, noteVersionFiles, noteVersions, trashedNotes, versionFilesBacklog } from "../../db/schema";
import type { FileStorage } from "../files/blob-store";
import { referencedFileIds } from "../files/file-links";
import { releaseFiles } from "../files/release-files";
import { applyDelta, type TextDelta } from "./text-delta";

/**
 * Lets go of the files that purged notes and pruned or purged versions showed, for one user or
 * every user with some queued: each goes unless a note, a note in the trash or a kept version
 * still shows it. Versions written before their files were recorded are read first.
 */
export async function releaseUnshownFiles({ db, storage }: { db: Database; storage?: FileStorage }, userId?: number): Promise<number> {
  const users = userId !== undefined ? [userId] : (await db.selectDistinct({ userId: fileReleases.userId }).from(fileReleases)).map((row) => row.userId);
  for (const user of users) await recordOlderVersionFiles(db, user);
  return releaseFiles({ db, storage }, userId);
}

/**
 * Records the files shown by the user's versions written before `note_version_files` existed
 * (the notes in `version_files_backlog`; or only `noteId`, if it is one), each note's texts rebuilt
 * from its current text down.
 */
export async function recordOlderVersionFiles(db: Database, userId: number, noteId?: number): Promise<void> {
  const backlog = await db
    .select({ noteId: versionFilesBacklog.noteId })
    .from(versionFilesBacklog)
    .where(and(eq(versionFilesBacklog.userId, userId), noteId === undefined ? undefined : eq(versionFilesBacklog.noteId, noteId)));
  for (const { noteId } of backlog) await recordNoteVersionFiles(db, userId, noteId);
}

/** One note's versions, read and recorded in one write transaction: no edit, prune or purge of it comes between. */
async function recordNoteVersionFiles(db: Database, userId: number, noteId: number): Promise<void> {
  await db.transaction(
    async (tx) => {
      const [current] = [
        ...(await tx.select({ content: notes.content }).from(notes).where(eq(notes.id, noteId))),
        ...(await tx.select({ content: trashedNotes.content }).from(trashedNotes).where(eq(trashedNotes.id, noteId))),
      ];
      const chain = current
        ? await tx.select({ version: noteVersions.version, delta: noteVersions.delta }).from(noteVersions).where(eq(noteVersions.noteId, noteId)).orderBy(desc(noteVersions.version))
        : [];
      let text = current?.content ?? "";
      for (const { version, delta } of chain) {
        text = applyDelta(text, JSON.parse(delta) as TextDelta);
        const ids = referencedFileIds(text);
        if (ids.length > 0) await tx.insert(noteVersionFiles).values(ids.map((fileId) => ({ userId, fileId, noteId, version }))).onConflictDoNothing();
      }
      await tx.delete(versionFilesBacklog).where(eq(versionFilesBacklog.noteId, noteId));
    },
    { behavior: "immediate" },
  );
}
