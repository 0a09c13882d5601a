import { z } from "zod";
import type { Database } from "../db/client";
import type { ChangePublisher } from "../modules/events/change";
import type { FileStorage } from "../modules/files/blob-store";
import type { OcrProcess } from "../modules/ocr/ocr-process";
import type { OcrQueue } from "../modules/ocr/ocr-queue";
import { defineTask } from "./define-task";

/** Text in pictures (OCR=local): the OCR process, and how a job queues another; without it, nothing is read. */
export interface OcrJobSettings {
  maxPictures: number;
  /** How long after a person's save their note is left alone. */
  quietMs: number;
  process: Pick<OcrProcess, "read">;
  queue: () => OcrQueue;
}

/** The OCR process is replaced when it fails; a few attempts cover its restarts and a busy note. */
const OCR_MAX_ATTEMPTS = 5;

/** Text in pictures' jobs: a note's pictures read into it, and an archive import's notes looked through. */
export function ocrTasks(deps: { db: Database; files?: FileStorage; changes: ChangePublisher; ocr?: OcrJobSettings }, forAccount: (userId: number, job: () => Promise<void>) => Promise<void>) {
  return [
    defineTask({
      name: "ocr-note",
      payload: z.object({ userId: z.number().int().positive(), noteId: z.number().int().positive() }),
      maxAttempts: OCR_MAX_ATTEMPTS,
      // One picture at a time goes to the one OCR process: one note at a time leaves the other slots to other work.
      serialQueue: "ocr",
      handler: async (payload) => {
        const ocr = deps.ocr;
        // OCR was turned off since the job was queued, or this worker keeps no files: nothing to read.
        if (!ocr || !deps.files) return;
        const filesDir = deps.files.dir;
        const { readNotePictures } = await import("../modules/ocr/read-note-pictures");
        await forAccount(payload.userId, async () => {
          await readNotePictures(
            {
              db: deps.db,
              filesDir,
              read: (file) => ocr.process.read(file),
              maxPictures: ocr.maxPictures,
              changes: deps.changes,
              quietMs: ocr.quietMs,
              later: (runAt) => ocr.queue().enqueueNote(payload.userId, payload.noteId, runAt),
            },
            payload,
          );
        });
      },
    }),
    defineTask({
      name: "ocr-archive",
      payload: z.object({ userId: z.number().int().positive(), taskId: z.number().int().positive() }),
      maxAttempts: OCR_MAX_ATTEMPTS,
      handler: async (payload) => {
        const ocr = deps.ocr;
        if (!ocr) return;
        const { queueArchiveNotes } = await import("../modules/ocr/ocr-queue");
        await forAccount(payload.userId, async () => {
          await queueArchiveNotes({ db: deps.db, queue: ocr.queue(), maxPictures: ocr.maxPictures }, payload);
        });
      },
    }),
    defineTask({
      name: "ocr-sweep",
      payload: z.object({}),
      maxAttempts: 1,
      schedule: "47 4 * * *", // daily, after the files sweep: what was read in pictures no one keeps goes too
      handler: async (_payload, helpers) => {
        const { forgetUnstoredTexts } = await import("../modules/ocr/ocr-store");
        const forgotten = await forgetUnstoredTexts(deps.db);
        if (forgotten) helpers.log.info(`forgot the text of ${forgotten} picture(s) no one stores any more`);
      },
    }),
  ] as const;
}
