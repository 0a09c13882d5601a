import fs from "node:fs";
import type { Database } from "../../db/client";
import { log } from "../../log";
import type { ChangePublisher } from "../events/change";
import { ConflictError, NotFoundError } from "../errors";
import { blobPath } from "../files/blob-store";
import { storedWriter, type Writer } from "../history/writer";
import { noteEventData } from "../notes/note-record";
import { MAX_CONTENT_BYTES, type NoteRecord } from "../notes/schemas";
import { updateNote } from "../notes/update-note";
import type { PictureReading } from "./ocr-process";
import { currentNote, givenPictures, keepText, keptTexts, ownPictures, recordGiven, type KeptText } from "./ocr-store";
import { notePictures, withPictureTexts, type NotePicture, type PictureText } from "./picture-section";

/** The note's text is written by the service itself, as an import's is. */
export const OCR_WRITER: Writer = { kind: "import", name: "ocr", key: null };

/** A person who just saved may still be typing: their editor would then meet a conflict. */
export const QUIET_AFTER_PERSON_MS = 30_000;
/** Someone else keeps writing the note between our read and our write: give up for now, the job retries. */
const MAX_WRITE_TRIES = 5;

export interface OcrRun {
  db: Database;
  filesDir: string;
  read(file: string): Promise<PictureReading>;
  maxPictures: number;
  changes?: ChangePublisher;
  /** How long after a person's (a login session's) write the note is left alone. */
  quietMs: number;
  /** Queues this note's job again at `runAt`. */
  later(runAt: Date): Promise<void>;
}

export type OcrOutcome = "written" | "unchanged" | "later" | "gone";

/**
 * The job of one note: reads the first `maxPictures` of its stored pictures (each picture's text
 * kept by hash, so a picture is read once, ever) and, when some are new to the note, writes their
 * text in (picture-section.ts) as a system edit that holds only if the note is as it was read — a
 * person's concurrent edit wins, and the job reads the note again. Pictures the note was already
 * given are not given again, so a person's edits of that text stand.
 */
export async function readNotePictures(run: OcrRun, job: { userId: number; noteId: number }): Promise<OcrOutcome> {
  for (let attempt = 1; attempt <= MAX_WRITE_TRIES; attempt++) {
    const note = await currentNote(run.db, job.userId, job.noteId);
    if (!note) return "gone";
    const pictures = notePictures(note.content).slice(0, run.maxPictures);
    const given = await givenPictures(run.db, job.noteId);
    const fresh = pictures.filter((picture) => !given.has(picture.fileId));
    if (fresh.length === 0) return "unchanged";
    const texts = await pictureTexts(run, job.userId, pictures);
    // Read now (kept by hash), written once the person has paused.
    if (storedWriter(note.writtenBy, note.sourcePlatform).kind === "session" && Date.now() - note.updatedAt < run.quietMs) {
      await run.later(new Date(note.updatedAt + run.quietMs));
      return "later";
    }
    // A page already given its text keeps whatever the note now says there.
    const written = texts.filter((text) => !text.picture.page || !given.has(text.picture.fileId));
    const content = withPictureTexts(note.content, written);
    const done = [...given, ...pictures.map((picture) => picture.fileId)];
    if (content === note.content) {
      await recordGiven(run.db, job.noteId, done);
      return "unchanged";
    }
    if (Buffer.byteLength(content, "utf8") > MAX_CONTENT_BYTES) {
      log.warn(`note ${job.noteId}: the text of its pictures would take it past 1 MiB; left as it is`);
      await recordGiven(run.db, job.noteId, done);
      return "unchanged";
    }
    let record: NoteRecord;
    try {
      // Its event is published below, once the pictures are recorded as given (else it would queue this job again).
      record = await updateNote({
        ctx: { db: run.db, userId: job.userId },
        input: { id: job.noteId, content, expected_updated_at: new Date(note.updatedAt).toISOString() },
        writer: OCR_WRITER,
      });
    } catch (error) {
      if (error instanceof NotFoundError) return "gone";
      if (error instanceof ConflictError) continue;
      throw error;
    }
    await recordGiven(run.db, job.noteId, done);
    await run.changes?.publish({ userId: job.userId, kind: "note", id: job.noteId, event: { type: "note.updated", data: noteEventData(record) } });
    return "written";
  }
  throw new Error(`note ${job.noteId} kept changing while its pictures' text was being written; trying again later`);
}

/** Each picture's text: kept from before, or read now (and kept). A file missing from the store is skipped. */
async function pictureTexts(run: OcrRun, userId: number, pictures: NotePicture[]): Promise<PictureText[]> {
  const stored = await ownPictures(run.db, userId, pictures.map((picture) => picture.fileId));
  const kept = await keptTexts(run.db, [...new Set([...stored.values()].map((file) => file.sha256))]);
  const texts: PictureText[] = [];
  for (const picture of pictures) {
    const file = stored.get(picture.fileId);
    if (!file) continue;
    let text: KeptText | undefined = kept.get(file.sha256);
    if (!text) {
      const path = blobPath(run.filesDir, file.sha256);
      if (!fs.existsSync(path)) continue;
      const reading = await run.read(path);
      text = "lines" in reading ? { lines: reading.lines, unreadable: null } : { lines: [], unreadable: reading.unreadable };
      if (text.unreadable) log.info(`picture ${file.sha256.slice(0, 12)} of note pictures cannot be read: ${text.unreadable}`);
      await keepText(run.db, file.sha256, text);
      kept.set(file.sha256, text);
    }
    texts.push({ picture, lines: text.lines });
  }
  return texts;
}
