import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { eq } from "drizzle-orm";
import { importTasks } from "../../db/schema";
import { log } from "../../log";
import { removeArchiveFile } from "../archives/archive-file";
import { releasePendingFiles } from "../files/release-files";
import { ImportError } from "../imports/import-error";
import type { ImportedDocument } from "../imports/platforms/types";
import { failOrRetry, saveNote, type ImportRun } from "../imports/run-import";
import { storeNoteImages } from "../imports/store-images";
import { importedTitle } from "../notes/note-text";
import { MAX_CONTENT_BYTES } from "../notes/schemas";
import { convertDocument } from "./convert-document";
import { DocumentFiles } from "./document-files";
import { type DocumentKind, isDocumentKind, KIND_MIME, KIND_NAMES } from "./document-kinds";

type Task = typeof importTasks.$inferSelect;
type Update = (fields: Partial<typeof importTasks.$inferInsert>) => Promise<void>;

/** Room kept in the note for what follows the document's text: the cut line, the original's link, the source line. */
const NOTE_TAIL_BYTES = 8 * 1024;

const uploadSchema = z.object({ title: z.string().optional(), filename: z.string().optional(), uploaded_at: z.string() });

/**
 * The job of an uploaded document (`platform: "document"`): its file waits under DATA_DIR/archives
 * (the task's `archiveFile`, its kind in `archiveFormat`, the title and file name given in
 * `content`). It becomes a note with the original linked at its end; the upload is deleted once the
 * task ends. Idempotent as any import: the note is written in the transaction that completes the task.
 */
export async function runDocumentImport(run: ImportRun, task: Task): Promise<void> {
  const uploadsDir = run.archivesDir ?? "";
  const update = taskUpdater(run, task);
  try {
    const kind = task.archiveFormat;
    const file = path.join(uploadsDir, path.basename(task.archiveFile ?? ""));
    if (!isDocumentKind(kind) || !task.archiveFile || !fs.existsSync(file)) throw new ImportError("The uploaded document is gone from the server; upload it again.", { permanent: true });
    const upload = uploadSchema.parse(JSON.parse(task.content ?? "{}"));
    await update({ status: "running", startedAt: task.startedAt ?? Date.now(), progress: 5, message: `Reading the ${KIND_NAMES[kind]} document` });
    await importDocumentFile(run, task, update, {
      file,
      kind,
      titles: [upload.title, "own", upload.filename],
      untitled: `Document uploaded ${upload.uploaded_at.slice(0, 16).replace("T", " ")} UTC`,
    });
    removeArchiveFile(uploadsDir, task.archiveFile);
  } catch (error) {
    removeArchiveFile(uploadsDir, await failOrRetry(run, task.id, error, update));
  }
}

/**
 * A document on disk made the task's note: read by its kind, its pictures and its original kept as
 * the user's files, cut to the note's 1 MiB with a line saying so. The title is the first of
 * `titles` that is set (`"own"`: the document's own title), else `untitled`.
 */
export async function importDocumentFile(
  run: ImportRun,
  task: Task,
  update: Update,
  input: { file: string; kind: DocumentKind; titles: (string | undefined)[]; untitled: string; sourceUrl?: string },
): Promise<void> {
  const files = new DocumentFiles({ db: run.db, storage: run.files, userId: task.userId, taskId: task.id });
  const converted = await convertDocument(input.kind, input.file, {
    files,
    signal: run.signal,
    maxBytes: MAX_CONTENT_BYTES - NOTE_TAIL_BYTES,
    onProgress: (progress, message) => update({ progress, message }),
    web: run.importers.web,
    storeRemoteImages:
      run.download && run.files
        ? (markdown) => storeNoteImages({ db: run.db, storage: run.files!, download: run.download!, userId: task.userId, taskId: task.id, referer: undefined, signal: run.signal }, markdown)
        : undefined,
  });
  await update({ progress: 85, message: "Keeping the original" });
  const original = await files.keepOriginal(input.file, KIND_MIME[input.kind]);
  const markdown = [converted.markdown, converted.cut && `_${converted.cut}_`, original && `[original](${original})`].filter(Boolean).join("\n\n");
  const title = input.titles.map((title) => importedTitle((title === "own" ? converted.ownTitle : title) ?? "")).find(Boolean) ?? input.untitled;
  const document: ImportedDocument = {
    title,
    markdown,
    tags: converted.tags ?? [],
    sourceUrl: input.sourceUrl ?? converted.sourceUrl,
    author: converted.author,
    publishedAt: converted.publishedAt,
  };
  await update({ progress: 90, message: "Saving the note" });
  const { noteId, written } = await saveNote(run.db, task, document, { fileIds: files.fileIds, failures: files.failures }, {
    note: converted.cut ? "the note holds the document's first 1 MiB of text" : undefined,
  });
  // Files kept for a note that was not written (unchanged, or edited here since) go again.
  await releasePendingFiles({ db: run.db, storage: run.files }, task.id);
  if (written && noteId !== null) await run.changes.publish({ userId: task.userId, kind: "note", id: noteId, event: { type: `note.${written}` } });
  await run.changes.publish({ userId: task.userId, kind: "task", id: task.id, event: { type: "task.completed" } });
  if (noteId !== null) log.info(`document task ${task.id} completed as note ${noteId}`);
}

function taskUpdater(run: ImportRun, task: Task): Update {
  return (fields) =>
    run.db
      .update(importTasks)
      .set({ ...fields, updatedAt: Date.now() })
      .where(eq(importTasks.id, task.id))
      .then(() => run.changes.publish({ userId: task.userId, kind: "task", id: task.id }));
}
