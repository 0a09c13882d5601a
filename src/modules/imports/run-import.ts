import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { files, importSources, importTasks } from "../../db/schema";
import type { Database } from "../../db/client";
import type { ChangePublisher } from "../events/change";
import { log } from "../../log";
import { removeArchiveFile } from "../archives/archive-file";
import { planNoteWrite } from "../archives/reimport";
import { importedTags, importedText, importedTitle } from "../notes/note-text";
import { MAX_CONTENT_BYTES, type NoteSource } from "../notes/schemas";
import { ImportError } from "./import-error";
import type { FileStorage } from "../files/blob-store";
import { releasePendingFiles } from "../files/release-files";
import type { Downloader, Fetcher, ImportedDocument, PlatformImporter } from "./platforms/types";
import { remoteImageUrls, storeNoteImages, type StoredImages } from "./store-images";
import type { Platform, TaskCounts } from "./schemas";
import { sourceKeyOf } from "./source-key";

export interface ImportRun {
  db: Database;
  fetcher: Fetcher;
  importers: Record<Platform, PlatformImporter>;
  /** Where uploaded archives wait (DATA_DIR/archives); only archive tasks need it. */
  archivesDir?: string;
  signal: AbortSignal;
  attempt: number;
  maxAttempts: number;
  changes: ChangePublisher;
  /** With both, the note's pictures are downloaded and stored as the user's files. */
  download?: Downloader;
  files?: FileStorage;
  /** With it, a video whose words are not on its page is transcribed by its own job (speech-to-text is set up). */
  transcriptions?: { enqueue(task: { id: number; userId: number }): Promise<boolean> };
  /** Downloads a linked document (a PDF) under DOCUMENT_MAX_MB; without it, such a link fails as a file that is no page. */
  downloadDocument?: Downloader;
}

/** What an import hands its transcription job: the document to save once the transcript is in. */
export interface PendingTranscription {
  document: ImportedDocument;
  images?: Pick<StoredImages, "fileIds" | "failures">;
}

const IMAGE_PROGRESS_EVERY_MS = 200;
const ONE_FAILED: TaskCounts = { created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 1 };
const UNEXPECTED = "The import failed unexpectedly. Try again later, or paste the content instead.";

/**
 * The import job. Delivery is at least once, so it is idempotent: a finished task is left alone,
 * the task's owner is re-checked, and the note is written in the same transaction that completes
 * the task, so a retry can never create a second note. Permanent failures end the task; transient
 * ones are thrown for the queue to retry, until the last attempt.
 */
export async function runImportTask(run: ImportRun, payload: { taskId: number; userId: number }): Promise<void> {
  const { db } = run;
  const [task] = await db
    .select()
    .from(importTasks)
    .where(and(eq(importTasks.id, payload.taskId), eq(importTasks.userId, payload.userId)));
  if (!task || task.status === "completed" || task.status === "failed") return;
  if (task.platform === "archive") return runArchive(run, task);
  if (task.platform === "document") return (await import("../documents/run-document-import")).runDocumentImport(run, task);
  // The page is fetched; its transcription job (queued again here, should it have gone missing) finishes the task.
  if (task.transcription !== null) {
    if (run.transcriptions) await run.transcriptions.enqueue({ id: task.id, userId: task.userId });
    return;
  }

  // Only an unfinished task moves: one cancelled (or failed) since it was read above stays as it ended.
  let ended = false;
  const update = (fields: Partial<typeof importTasks.$inferInsert>) =>
    db.update(importTasks).set({ ...fields, updatedAt: Date.now() }).where(and(eq(importTasks.id, task.id), inArray(importTasks.status, ["pending", "running"])))
      .returning({ id: importTasks.id })
      .then(async (moved) => {
        if (moved.length === 0) ended = true;
        else await run.changes.publish({ userId: task.userId, kind: "task", id: task.id });
      });
  const platform = task.platform as Platform;
  const importer = run.importers[platform];
  await update({
    status: "running",
    startedAt: task.startedAt ?? Date.now(),
    progress: 10,
    message: task.document !== null ? "Reading the feed item" : task.url && task.content === null ? `Fetching ${new URL(task.url).host}` : "Reading the pasted content",
  });
  // Cancelled between the read and the claim (an agent's tasks/cancel): nothing is fetched and no note is made.
  if (ended) return;

  try {
    let document: ImportedDocument;
    if (task.document !== null) {
      // Read already (a feed item's full text, a podcast episode): no page is fetched.
      document = JSON.parse(task.document) as ImportedDocument;
    } else if (task.content !== null) {
      document = ownMedia(importer.parsePasted(task.content, task.url ?? undefined), task.userId);
    } else {
      let fetches = 0;
      // Each finished fetch moves progress on, so long multi-request imports (Bilibili) show movement.
      const fetcher: Fetcher = async (url, options) => {
        const page = await run.fetcher(url, { ...options, signal: run.signal });
        fetches++;
        await update({ progress: Math.min(60, 20 + fetches * 15), message: `Fetched ${new URL(page.url).host}; parsing` });
        return page;
      };
      document = await importer.fetchDocument(task.url!, fetcher, run.signal);
      if (document.linkedDocument) {
        const { importLinkedDocument } = await import("../documents/import-linked-document");
        return await importLinkedDocument(run, task, document.linkedDocument.url, update);
      }
    }
    let images: StoredImages | undefined;
    let lastImageUpdate = 0;
    const pictures = remoteImageUrls(document.markdown).length;
    if (run.download && run.files && pictures > 0) {
      await update({ progress: 60, message: `Storing ${pictures} picture${pictures === 1 ? "" : "s"}` });
      images = await storeNoteImages(
        {
          db,
          storage: run.files,
          download: run.download,
          userId: task.userId,
          taskId: task.id,
          referer: importer.imageReferer(document.sourceUrl ?? task.url ?? undefined),
          signal: run.signal,
          onImage: (done, total) => {
            // Each update is a commit and an event: at most a few a second, and always the last.
            const now = Date.now();
            if (done < total && now - lastImageUpdate < IMAGE_PROGRESS_EVERY_MS) return;
            lastImageUpdate = now;
            return update({ progress: 60 + Math.floor((20 * done) / total), message: `Fetched ${done} of ${total} pictures` });
          },
        },
        document.markdown,
      );
      document = { ...document, markdown: images.markdown };
    }
    if (document.media && run.transcriptions) {
      const pending: PendingTranscription = { document, images: images && { fileIds: images.fileIds, failures: images.failures } };
      await update({ transcription: JSON.stringify(pending), progress: 60, message: "Waiting to transcribe the video's sound" });
      await run.transcriptions.enqueue({ id: task.id, userId: task.userId });
      return;
    }
    if (document.media?.withoutTranscript) document = { ...document, markdown: `${document.markdown}\n\n${document.media.withoutTranscript}` };
    await update({ progress: 80, message: "Saving the note" });
    const { noteId, written } = await saveNote(db, task, document, images);
    // Pictures stored for a note that was not written (unchanged, or edited here) are not kept.
    if (images) await releasePendingFiles({ db, storage: run.files }, task.id);
    // An imported note is a note written like any other, to whoever listens.
    if (written && noteId !== null) await run.changes.publish({ userId: task.userId, kind: "note", id: noteId, event: { type: `note.${written}` } });
    await run.changes.publish({ userId: task.userId, kind: "task", id: task.id, event: { type: "task.completed" } });
    if (noteId !== null) log.info(`import task ${task.id} completed as note ${noteId}`);
  } catch (error) {
    await failOrRetry(run, task.id, error, update);
  }
}

/**
 * An import's error: a permanent one (or any on the last attempt) fails the task, and the name of
 * its upload is returned for the caller to delete; a transient one is said in the task's message
 * and thrown again, for the queue to retry.
 */
export async function failOrRetry(
  run: Pick<ImportRun, "db" | "attempt" | "maxAttempts" | "changes" | "files">,
  taskId: number,
  error: unknown,
  update: (fields: Partial<typeof importTasks.$inferInsert>) => Promise<void>,
): Promise<string | null> {
  const lastAttempt = run.attempt >= run.maxAttempts;
  if (error instanceof ImportError && (error.permanent || lastAttempt)) return markTaskFailed(run.db, taskId, error.message, run.changes, run.files);
  if (!(error instanceof ImportError)) log.error(`import task ${taskId} failed unexpectedly`, error);
  if (lastAttempt) return markTaskFailed(run.db, taskId, UNEXPECTED, run.changes, run.files);
  const reason = error instanceof ImportError ? error.message : "an unexpected error";
  await update({ message: `Temporary problem (attempt ${run.attempt} of ${run.maxAttempts}): ${reason}. Retrying shortly.` });
  throw error;
}

/**
 * Media named by pasted content (its video id and its address alike) is kept for that user alone:
 * only what the service located itself is shared, so no one can plant another's transcript.
 */
function ownMedia(document: ImportedDocument, userId: number): ImportedDocument {
  return document.media ? { ...document, media: { ...document.media, key: `pasted:${userId}:${document.media.key}` } } : document;
}

/**
 * Fails an unfinished task, and lets go of the pictures it stored for a note it never wrote; returns
 * the name of its uploaded archive, for the caller to delete. Without `storage` only the rows go.
 * `from` narrows which unfinished tasks it fails (a cancellation takes only pending ones).
 */
export async function markTaskFailed(
  db: Database,
  taskId: number,
  error: string,
  changes: ChangePublisher,
  storage?: FileStorage,
  from: readonly ("pending" | "running")[] = ["pending", "running"],
): Promise<string | null> {
  const now = Date.now();
  const [before] = await db.select({ archiveFile: importTasks.archiveFile }).from(importTasks).where(eq(importTasks.id, taskId));
  const [failed] = await db
    .update(importTasks)
    .set({
      status: "failed",
      error,
      message: "Failed",
      // A single import counts its one note as failed; an archive keeps what its saved slices counted.
      counts: sql`case when ${importTasks.platform} = 'archive' then ${importTasks.counts} else ${JSON.stringify(ONE_FAILED)} end`,
      finishedAt: now,
      updatedAt: now,
      content: null,
      document: null,
      archiveFile: null,
      transcription: null,
    })
    .where(and(eq(importTasks.id, taskId), inArray(importTasks.status, [...from])))
    .returning({ userId: importTasks.userId });
  if (failed) {
    await releasePendingFiles({ db, storage }, taskId);
    await changes.publish({ userId: failed.userId, kind: "task", id: taskId, event: { type: "task.failed" } });
  }
  return failed ? (before?.archiveFile ?? null) : null;
}

/**
 * An archive task: one job runs it in slices that resume where a killed worker stopped. Errors it
 * does not handle itself are retried by the queue, and fail the task on the last attempt.
 */
async function runArchive(run: ImportRun, task: typeof importTasks.$inferSelect): Promise<void> {
  const { runArchiveImport } = await import("../archives/run-archive-import");
  const archivesDir = run.archivesDir ?? "";
  try {
    await runArchiveImport({ db: run.db, archivesDir, signal: run.signal, changes: run.changes, files: run.files }, task);
  } catch (error) {
    if (run.signal.aborted || run.attempt < run.maxAttempts) throw error;
    log.error(`archive task ${task.id} failed unexpectedly`, error);
    removeArchiveFile(archivesDir, await markTaskFailed(run.db, task.id, "The archive import failed unexpectedly; upload it again later.", run.changes, run.files));
  }
}

/**
 * Writes the note and completes the task in one transaction. A source imported before is found
 * by its key and updated, left unchanged or skipped (edited here) — never duplicated; the task's
 * `note_id` is that note. Returns the note id (null if another run won).
 */
export async function saveNote(
  db: Database,
  task: typeof importTasks.$inferSelect,
  document: ImportedDocument,
  images?: Pick<StoredImages, "fileIds" | "failures">,
  /** `note`: what the task's message adds once the note is written (a document cut at 1 MiB says so). */
  extra: { failures?: { name: string; error: string }[]; note?: string } = {},
): Promise<{ noteId: number | null; written: "created" | "updated" | null }> {
  const sourceUrl = document.sourceUrl ?? task.url;
  const body = document.markdown.replaceAll("\u0000", "").trim();
  const content = sourceUrl ? `${body}\n\n---\n\nSource: <${sourceUrl}>\n` : body;
  if (Buffer.byteLength(content, "utf8") > MAX_CONTENT_BYTES) {
    throw new ImportError("The imported content is larger than the 1 MiB a note can hold.", { permanent: true });
  }
  // The notes' own rules, so the imported note can be sent back with PUT unchanged.
  const title = importedTitle(document.title, untitled(sourceUrl));
  const tags = importedTags([task.platform, ...(task.tags ? (JSON.parse(task.tags) as string[]) : []), ...document.tags]);
  const source: NoteSource = {
    platform: task.platform,
    url: sourceUrl ?? null,
    author: importedText(document.author),
    published_at: isoTimeOrNull(document.publishedAt),
  };
  const sourceKey = sourceUrl ? sourceKeyOf(task.platform, sourceUrl) : null;
  const now = Date.now();
  const stillRunning = and(eq(importTasks.id, task.id), eq(importTasks.status, "running"), isNull(importTasks.noteId));
  // Every write carries the same guard inside one transaction: the note is written iff the task completes with it.
  const plan = await planNoteWrite(db, task.userId, { title, content, tags, createdAt: null, source, sourceKey }, {
    now,
    guard: sql`exists (select 1 from ${importTasks} where ${stillRunning})`,
  });
  const noteId =
    plan.noteId ??
    (sourceKey
      ? sql`(select ${importSources.noteId} from ${importSources} where ${importSources.userId} = ${task.userId} and ${importSources.sourceKey} = ${sourceKey})`
      : sql`last_insert_rowid()`);
  const counts: TaskCounts = { created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0, [plan.outcome]: 1 };
  const completion = db
    .update(importTasks)
    .set({
      status: "completed",
      noteId,
      progress: 100,
      message: `${plan.outcome === "created" ? "Imported" : plan.outcome === "updated" ? "Imported again: the note was updated" : plan.outcome === "unchanged" ? "Already imported: nothing changed" : "Not imported again: the note was edited here"}${extra.note && (plan.outcome === "created" || plan.outcome === "updated") ? `; ${extra.note}` : ""}`,
      error: null,
      content: null,
      document: null,
      counts: JSON.stringify(counts),
      failures: JSON.stringify([...(extra.failures ?? []), ...(plan.reason ? [{ name: sourceUrl ?? "content", error: plan.reason }] : []), ...(images?.failures ?? [])].slice(0, 100)),
      transcription: null,
      finishedAt: now,
      updatedAt: now,
    })
    .where(stillRunning)
    .returning({ noteId: importTasks.noteId });
  // The note now refers to its pictures: they stop being pending, in the same transaction.
  const written = plan.outcome === "created" || plan.outcome === "updated";
  const claimFiles =
    written && images && images.fileIds.length > 0
      ? [db.update(files).set({ pendingTaskId: null }).where(and(eq(files.userId, task.userId), inArray(files.id, images.fileIds), sql`exists (select 1 from ${importTasks} where ${stillRunning})`))]
      : [];
  const results = await db.batch([...plan.statements, ...claimFiles, completion] as unknown as [typeof completion]);
  // Another run finished (or failed) the task first: nothing was written, and there is nothing to do.
  const savedId = (results.at(-1) as { noteId: number | null }[])[0]?.noteId ?? null;
  return { noteId: savedId, written: savedId !== null && (plan.outcome === "created" || plan.outcome === "updated") ? plan.outcome : null };
}

/** The title of an import whose page gives none. */
function untitled(sourceUrl: string | null | undefined): string {
  const host = sourceUrl ? URL.parse(sourceUrl)?.host : undefined;
  return host ? `Untitled import from ${host}` : "Untitled import";
}

function isoTimeOrNull(value: string | undefined): string | null {
  const time = value ? Date.parse(value) : Number.NaN;
  return Number.isFinite(time) ? new Date(time).toISOString() : null;
}
