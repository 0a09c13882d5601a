import { and, eq, inArray, lt, sql } from "drizzle-orm";
import { importTasks } from "../../db/schema";
import type { Database } from "../../db/client";
import type { ChangePublisher } from "../events/change";
import { log } from "../../log";
import type { ImportQueue } from "./import-queue";
import { removeArchiveFile } from "../archives/archive-file";
import type { FileStorage } from "../files/blob-store";
import { markTaskFailed } from "./run-import";

/** Tasks younger than this are left alone: their job may be being queued right now. */
const GRACE_MS = 30_000;
const MAX_REQUEUES = 3;

/**
 * Keeps task rows (libSQL) and jobs (Postgres) consistent, since they cannot share a transaction:
 * an unfinished task whose job is missing is queued again (a bounded number of times), and one
 * whose job ran out of attempts is marked failed. Runs at worker start and then periodically.
 */
export async function reconcileImportTasks(
  db: Database,
  queue: ImportQueue,
  changes: ChangePublisher,
  { now = Date.now(), archivesDir, files }: { now?: number; archivesDir?: string; files?: FileStorage } = {},
): Promise<{ requeued: number; failed: number }> {
  const stale = await db
    .select({ id: importTasks.id, userId: importTasks.userId, requeues: importTasks.requeues, transcribing: sql<number>`${importTasks.transcription} is not null` })
    .from(importTasks)
    .where(and(inArray(importTasks.status, ["pending", "running"]), lt(importTasks.updatedAt, now - GRACE_MS)))
    .limit(500);
  let requeued = 0;
  let failed = 0;
  for (const task of stale) {
    // A task whose page is fetched lives on in its transcription job.
    const transcribing = Boolean(task.transcribing) && queue.findTranscriptionJob !== undefined;
    const job = transcribing ? await queue.findTranscriptionJob!(task.id) : await queue.findImportJob(task.id);
    if (job && !job.permanentlyFailed) continue;
    if (job?.permanentlyFailed || task.requeues >= MAX_REQUEUES) {
      const archiveFile = await markTaskFailed(db, task.id, "The import could not be completed after several attempts. Try again, or paste the content instead.", changes, files);
      if (archivesDir) removeArchiveFile(archivesDir, archiveFile);
      failed++;
      continue;
    }
    await db
      .update(importTasks)
      .set({ status: "pending", requeues: task.requeues + 1, message: "Queued again", updatedAt: Date.now() })
      .where(eq(importTasks.id, task.id));
    await changes.publish({ userId: task.userId, kind: "task", id: task.id });
    if (await (transcribing ? queue.enqueueTranscription!(task) : queue.enqueueImport(task))) requeued++;
  }
  if (requeued || failed) log.info(`reconciler: ${requeued} import task(s) queued again, ${failed} marked failed`);
  return { requeued, failed };
}
