import type { Database } from "../../db/client";
import type { ChangeEventOutlet } from "../events/change";
import { archiveTaskCreatedAt, contentWithFiles, givenPictures, notesWithFilesSince } from "./ocr-store";
import { notePictures } from "./picture-section";

/** How note writers reach the job queue; implemented in jobs/. One OCR job per note at a time. */
export interface OcrQueue {
  /** Queues the note's job at `runAt` (default: in a moment, gathering a burst of writes). */
  enqueueNote(userId: number, noteId: number, runAt?: Date): Promise<void>;
  /** Queues the look through an archive import's notes (they send no note events of their own). */
  enqueueArchive(userId: number, taskId: number): Promise<void>;
}

export const ocrJobKey = (noteId: number) => `ocr:${noteId}`;

/**
 * Text in pictures' outlet of change events: a note created or written by anyone (the API, MCP, an
 * import, a transcript, a restore) that shows stored pictures it was not yet given the text of
 * queues its job. The test a write pays is one read by key, which skips notes with no stored file.
 * A finished archive import, whose notes send no events of their own, queues a look through them.
 */
export function createOcrOutlet(deps: { db: Database; queue: () => OcrQueue; maxPictures: number }): ChangeEventOutlet {
  return {
    name: "text in pictures",
    async emit(userId, event, subject) {
      if (event.type === "task.completed" && subject.kind === "task" && subject.id) {
        if ((await archiveTaskCreatedAt(deps.db, userId, subject.id)) !== null) await deps.queue().enqueueArchive(userId, subject.id);
        return;
      }
      if ((event.type !== "note.created" && event.type !== "note.updated") || subject.kind !== "note" || !subject.id) return;
      if (await hasPicturesToRead(deps.db, userId, subject.id, deps.maxPictures)) await deps.queue().enqueueNote(userId, subject.id);
    },
  };
}

/** The note shows stored pictures (among its first `maxPictures`) whose text it was not given yet. */
export async function hasPicturesToRead(db: Database, userId: number, noteId: number, maxPictures: number): Promise<boolean> {
  const content = await contentWithFiles(db, userId, noteId);
  if (content === null) return false;
  const pictures = notePictures(content).slice(0, maxPictures);
  if (pictures.length === 0) return false;
  const given = await givenPictures(db, noteId);
  return pictures.some((picture) => !given.has(picture.fileId));
}

/** The archive import's notes (written since its task was created) that have pictures to read: each gets its job. */
export async function queueArchiveNotes(deps: { db: Database; queue: OcrQueue; maxPictures: number }, job: { userId: number; taskId: number }): Promise<number> {
  const since = await archiveTaskCreatedAt(deps.db, job.userId, job.taskId);
  if (since === null) return 0;
  let queued = 0;
  for (const noteId of await notesWithFilesSince(deps.db, job.userId, since)) {
    if (!(await hasPicturesToRead(deps.db, job.userId, noteId, deps.maxPictures))) continue;
    await deps.queue.enqueueNote(job.userId, noteId);
    queued++;
  }
  return queued;
}
