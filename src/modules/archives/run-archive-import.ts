import fs from "node:fs";
import path from "node:path";
import { and, eq, inArray, isNotNull } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { files, importTasks } from "../../db/schema";
import type { Database } from "../../db/client";
import type { ChangePublisher } from "../events/change";
import { log } from "../../log";
import { MAX_CONTENT_BYTES } from "../notes/schemas";
import type { TaskCounts, TaskFailure } from "../imports/schemas";
import type { FileStorage } from "../files/blob-store";
import { releasePendingFiles } from "../files/release-files";
import { indexArchiveImages, storeArchiveImages, type ArchiveImageRun } from "./archive-images";
import type { ArchivedNote } from "./archived-note";
import { isHiddenEntry, isMarkdownName, unsafeNameReason } from "./entry-name";
import { exportNote, isExportFile, isRootMarkdown } from "./export-note";
import {
  MAX_ENTRIES,
  MAX_FAILURES,
  MAX_MARKDOWN_BYTES,
  MAX_RATIO,
  MAX_TOTAL_UNCOMPRESSED,
  RATIO_CHECK_FROM,
  type ArchiveFormat,
} from "./limits";
import { removeArchiveFile } from "./archive-file";
import { markdownNote } from "./markdown-note";
import { planNoteWrites } from "./reimport";
import { BrokenArchiveError, ZipArchive, type ArchiveEntry } from "./zip-archive";

export interface ArchiveRun {
  db: Database;
  archivesDir: string;
  signal: AbortSignal;
  changes: ChangePublisher;
  /** With it, the pictures notes show are stored as the user's files and the links rewritten. */
  files?: FileStorage;
}

/** Entries per transaction: the cursor, counts and notes of a slice are saved together. */
const SLICE_ENTRIES = 200;
/** …and at most about this much note content held at once. */
const SLICE_CHARS = 8 * 1024 * 1024;
/**
 * A vault's notes leave their garbage (texts, Markdown tokens, statements) faster than the GC
 * returns it; at ~1,700 notes/s a full collection every 2,000 entries let the process grow 90–101
 * MiB over 10,000 notes, one every 1,000 (a few tens of ms each) keeps it to 83–87 MiB (bench:archive).
 */
const GC_EVERY_SLICES = 5;
const utf8 = new TextDecoder();

type Task = typeof importTasks.$inferSelect;

/** An archive breaks a limit or cannot be read: the task fails with this message. */
class ArchiveRefused extends Error {}

/**
 * The archive job. It checks the whole central directory against the limits before writing
 * anything, then imports entries in slices; each slice's notes, cursor and counts are one
 * transaction, so a worker killed mid-archive resumes after the last saved slice and never
 * writes a note twice. The uploaded file is deleted when the task ends either way.
 */
export async function runArchiveImport(run: ArchiveRun, task: Task): Promise<void> {
  const { db } = run;
  const file = path.join(run.archivesDir, task.archiveFile ?? "");
  const publish = () => run.changes.publish({ userId: task.userId, kind: "task", id: task.id });
  const update = async (fields: Partial<typeof importTasks.$inferInsert>) => {
    await db.update(importTasks).set({ ...fields, updatedAt: Date.now() }).where(eq(importTasks.id, task.id));
    await publish();
  };
  if (!task.archiveFile || !fs.existsSync(file)) {
    await finish(run, task, { status: "failed", error: "The uploaded archive is no longer on the server; upload it again" });
    return;
  }
  await update({ status: "running", startedAt: task.startedAt ?? Date.now(), message: "Checking the archive" });
  try {
    const entryCount = await checkLimits(file);
    let format = task.archiveFormat as ArchiveFormat;
    if (format === "auto") {
      format = (await looksLikeOurExport(file)) ? "rhizome" : "markdown";
      await update({ archiveFormat: format });
    }
    await importEntries(run, { ...task, archiveFormat: format }, file, entryCount);
  } catch (error) {
    if (error instanceof ArchiveRefused || error instanceof BrokenArchiveError) {
      await finish(run, task, { status: "failed", error: error.message });
      return;
    }
    throw error;
  }
}

/** The contract's limits, from the central directory's declared sizes (yauzl checks them against the real ones while reading). */
async function checkLimits(file: string): Promise<number> {
  const zip = await ZipArchive.open(file);
  try {
    if (zip.entryCount > MAX_ENTRIES) throw new ArchiveRefused(`The archive has ${zip.entryCount} entries; at most ${MAX_ENTRIES} are accepted`);
    let total = 0;
    for await (const entry of zip.entries()) {
      total += entry.uncompressedSize;
      if (total > MAX_TOTAL_UNCOMPRESSED) throw new ArchiveRefused("The archive expands to more than 1 GiB; split it into smaller archives");
      if (entry.uncompressedSize > RATIO_CHECK_FROM && entry.uncompressedSize > MAX_RATIO * Math.max(1, entry.compressedSize)) {
        throw new ArchiveRefused(`${entry.name} expands more than ${MAX_RATIO} times (a zip bomb?); the archive was refused`);
      }
      if (isMarkdownName(entry.name) && entry.uncompressedSize > MAX_MARKDOWN_BYTES && !isHiddenEntry(entry.name)) {
        throw new ArchiveRefused(`${entry.name} is larger than the 10 MiB a Markdown file may be`);
      }
    }
    return zip.entryCount;
  } finally {
    zip.close();
  }
}

/** Ours when every `.md` at the root starts with our export's front matter (and there is one). */
async function looksLikeOurExport(file: string): Promise<boolean> {
  const zip = await ZipArchive.open(file);
  let found = false;
  try {
    for await (const entry of zip.entries()) {
      if (!isRootMarkdown(entry.name) || isHiddenEntry(entry.name) || unsafeNameReason(entry.name)) continue;
      if (!isExportFile(utf8.decode(await zip.read(entry, MAX_MARKDOWN_BYTES)))) return false;
      found = true;
    }
    return found;
  } finally {
    zip.close();
  }
}

async function importEntries(
  run: ArchiveRun,
  task: Task,
  file: string,
  entryCount: number,
): Promise<void> {
  const { db } = run;
  const counts: TaskCounts = task.counts ? JSON.parse(task.counts) : { created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0 };
  const failures: TaskFailure[] = JSON.parse(task.failures);
  const fail = (name: string, error: string) => failures.length < MAX_FAILURES && failures.push({ name, error });
  let cursor = task.cursor;
  let pending: { name: string; note: ArchivedNote; fileIds: number[] }[] = [];
  let pendingBytes = 0;
  let slices = 0;
  const progressAt = (done: number) => Math.min(99, Math.floor((done / Math.max(1, entryCount)) * 100));

  // Plans the slice's notes (their re-import lookups in two queries) and saves them with the cursor, in one transaction.
  const flush = async (done: number) => {
    const plans = await planNoteWrites(db, task.userId, pending.map((item) => item.note));
    const statements: BatchItem<"sqlite">[] = [];
    const claimed: number[] = [];
    plans.forEach((plan, index) => {
      counts[plan.outcome] += 1;
      if (plan.reason) fail(pending[index]!.name, plan.reason);
      statements.push(...plan.statements);
      if (plan.outcome === "created" || plan.outcome === "updated") claimed.push(...pending[index]!.fileIds);
    });
    // Pictures a written note shows stop being pending in the same transaction as the note.
    if (claimed.length > 0) {
      statements.push(db.update(files).set({ pendingTaskId: null }).where(and(eq(files.userId, task.userId), inArray(files.id, claimed), isNotNull(files.pendingTaskId))));
    }
    cursor = done;
    const taskUpdate = db
      .update(importTasks)
      .set({
        cursor,
        counts: JSON.stringify(counts),
        failures: JSON.stringify(failures),
        progress: progressAt(done),
        message: `Imported ${done} of ${entryCount} entries`,
        updatedAt: Date.now(),
      })
      .where(eq(importTasks.id, task.id));
    await db.batch([taskUpdate, ...statements]);
    pending = [];
    pendingBytes = 0;
    if (++slices % GC_EVERY_SLICES === 0) Bun.gc(true);
    await run.changes.publish({ userId: task.userId, kind: "task", id: task.id });
    if (run.signal.aborted) throw run.signal.reason ?? new Error("aborted");
  };

  const zip = await ZipArchive.open(file);
  const pictures: ArchiveImageRun | null = run.files
    ? { db, storage: run.files, zip, images: await indexArchiveImages(file), userId: task.userId, taskId: task.id, stored: new Map() }
    : null;
  try {
    let processed = cursor;
    for await (const entry of zip.entries()) {
      if (entry.index < cursor) continue;
      const note = await readEntry(zip, entry, task.archiveFormat as ArchiveFormat, counts, fail);
      if (note) {
        let fileIds: number[] = [];
        if (pictures && note.content.includes("![")) {
          const stored = await storeArchiveImages(pictures, entry.name, note.content);
          note.content = stored.content;
          fileIds = stored.fileIds;
          for (const failure of stored.failures) fail(`${entry.name}: ${failure.name}`, failure.error);
        }
        // Two entries with one key (a ZIP may repeat a name) go to separate slices, so the second sees the first.
        if (pending.some((item) => item.note.sourceKey === note.sourceKey)) await flush(entry.index);
        pending.push({ name: entry.name, note, fileIds });
        pendingBytes += note.content.length;
      }
      processed = entry.index + 1;
      if (processed - cursor >= SLICE_ENTRIES || pendingBytes > SLICE_CHARS) await flush(processed);
    }
    await flush(processed);
  } finally {
    zip.close();
  }
  const summary = `Imported: ${counts.created} created, ${counts.updated} updated, ${counts.unchanged} unchanged, ${counts.skipped} skipped, ${counts.failed} failed`;
  await finish(run, task, { status: "completed", message: summary });
  log.info(`archive task ${task.id}: ${summary}`);
}

/** One entry as a note, or null when it is counted as skipped or failed here. */
async function readEntry(
  zip: ZipArchive,
  entry: ArchiveEntry,
  format: ArchiveFormat,
  counts: TaskCounts,
  fail: (name: string, error: string) => unknown,
): Promise<ArchivedNote | null> {
  if (entry.isDirectory) return null;
  const unsafe = unsafeNameReason(entry.name);
  if (unsafe) {
    counts.failed += 1;
    fail(entry.name, unsafe);
    return null;
  }
  if (isHiddenEntry(entry.name) || !isMarkdownName(entry.name)) {
    counts.skipped += 1;
    return null;
  }
  const text = utf8.decode(await zip.read(entry, MAX_MARKDOWN_BYTES));
  const note = format === "rhizome" && isRootMarkdown(entry.name) && isExportFile(text) ? exportNote(text) : markdownNote(entry.name, text);
  if (Buffer.byteLength(note.content, "utf8") > MAX_CONTENT_BYTES) {
    counts.failed += 1;
    fail(entry.name, "Larger than the 1 MiB a note can hold");
    return null;
  }
  return note;
}

/** Ends the task (only if it is still unfinished) and deletes its uploaded file. */
async function finish(run: ArchiveRun, task: Task, end: { status: "completed" | "failed"; error?: string; message?: string }): Promise<void> {
  const now = Date.now();
  await run.db
    .update(importTasks)
    .set({
      status: end.status,
      error: end.error ?? null,
      message: end.message ?? "Failed",
      progress: end.status === "completed" ? 100 : undefined,
      finishedAt: now,
      updatedAt: now,
      archiveFile: null,
    })
    .where(and(eq(importTasks.id, task.id), inArray(importTasks.status, ["pending", "running"])));
  // At once, before anything else is awaited: whoever reads the task as ended finds its file gone.
  removeArchiveFile(run.archivesDir, task.archiveFile);
  // Pictures stored for notes that were not written (unchanged, skipped) are not kept.
  await releasePendingFiles({ db: run.db, storage: run.files }, task.id);
  await run.changes.publish({ userId: task.userId, kind: "task", id: task.id, event: { type: end.status === "completed" ? "task.completed" : "task.failed" } });
}
