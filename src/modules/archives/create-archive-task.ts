import { eq } from "drizzle-orm";
import { importTasks } from "../../db/schema";
import type { Database } from "../../db/client";
import type { ChangePublisher } from "../events/change";
import { log } from "../../log";
import { InvalidInputError, QueueUnavailableError } from "../errors";
import type { ImportQueue } from "../imports/import-queue";
import type { TaskRecord } from "../imports/schemas";
import { toTaskRecord } from "../imports/task-record";
import { ARCHIVE_BODY_LIMIT, type ArchiveFormat } from "./limits";
import { removeArchiveFile } from "./archive-file";
import { saveUpload } from "./save-upload";

/**
 * POST /api/tasks/archive: saves the upload under DATA_DIR/archives, writes the task as pending
 * and queues its job; as for single imports, a queue that cannot be reached deletes both again (503).
 */
export async function createArchiveTask({
  ctx,
  input,
}: {
  ctx: { db: Database; userId: number; importQueue: ImportQueue; changes: ChangePublisher; archivesDir: string };
  input: { format: ArchiveFormat; body: ReadableStream<Uint8Array> | null };
}): Promise<TaskRecord> {
  const upload = await saveUpload(input.body, ctx.archivesDir, ARCHIVE_BODY_LIMIT);
  if (upload.bytes === 0) {
    removeArchiveFile(ctx.archivesDir, upload.name);
    throw new InvalidInputError("The request body is empty: send the ZIP archive as the body (Content-Type: application/zip)");
  }
  const now = Date.now();
  const [row] = await ctx.db
    .insert(importTasks)
    .values({
      userId: ctx.userId,
      platform: "archive",
      status: "pending",
      progress: 0,
      message: "Queued",
      archiveFile: upload.name,
      archiveFormat: input.format,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  let queued: boolean;
  try {
    queued = await ctx.importQueue.enqueueImport({ id: row!.id, userId: ctx.userId });
  } catch (error) {
    log.warn(`could not queue archive task ${row!.id}; answering 503`, error);
    await ctx.db.delete(importTasks).where(eq(importTasks.id, row!.id));
    removeArchiveFile(ctx.archivesDir, upload.name);
    throw new QueueUnavailableError();
  }
  await ctx.changes.publish({ userId: ctx.userId, kind: "task", id: row!.id });
  return toTaskRecord(queued ? row! : { ...row!, message: "Queued (waiting for the job queue)" });
}
