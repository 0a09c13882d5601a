import { eq } from "drizzle-orm";
import type { z } from "zod";
import { importTasks } from "../../db/schema";
import type { Database } from "../../db/client";
import type { ChangePublisher } from "../events/change";
import { log } from "../../log";
import { QueueUnavailableError } from "../errors";
import type { ImportQueue } from "./import-queue";
import type { createTaskInput, TaskRecord } from "./schemas";
import { toTaskRecord } from "./task-record";
import { choosePlatform } from "./choose-platform";

type TaskContext = { db: Database; userId: number; importQueue: ImportQueue; changes: ChangePublisher };

/** What a kind of task stores beyond the row's bookkeeping. */
type TaskFields = Pick<typeof importTasks.$inferInsert, "platform" | "url" | "content" | "archiveFile" | "archiveFormat" | "transcription" | "uploadBytes">;

export async function createTask({ ctx, input }: { ctx: TaskContext; input: z.infer<typeof createTaskInput> }): Promise<TaskRecord> {
  return insertAndQueueTask(ctx, { platform: choosePlatform(input.platform, input.url), url: input.url ?? null, content: input.content ?? null });
}

/**
 * Writes the task as pending, then queues its job. If the queue is unreachable the task is deleted
 * again (and `undo` drops what the caller made for it) and the caller gets a 503 to retry (CONTRACT
 * "Errors": nothing is half-created); a task left pending by a crash between the two steps is
 * queued by the reconciler.
 */
export async function insertAndQueueTask(ctx: TaskContext, fields: TaskFields, undo?: () => void): Promise<TaskRecord> {
  const now = Date.now();
  const [row] = await ctx.db
    .insert(importTasks)
    .values({ ...fields, userId: ctx.userId, status: "pending", progress: 0, message: "Queued", createdAt: now, updatedAt: now })
    .returning();
  let queued: boolean;
  try {
    queued = await ctx.importQueue.enqueueImport({ id: row!.id, userId: ctx.userId });
  } catch (error) {
    log.warn(`could not queue task ${row!.id}; answering 503`, error);
    // Should the job have been added after all, it finds no task and does nothing.
    await ctx.db.delete(importTasks).where(eq(importTasks.id, row!.id));
    undo?.();
    throw new QueueUnavailableError();
  }
  await ctx.changes.publish({ userId: ctx.userId, kind: "task", id: row!.id });
  // Not queued without an error: graphile-worker added nothing this instant; the reconciler queues it.
  return toTaskRecord(queued ? row! : { ...row!, message: "Queued (waiting for the job queue)" });
}
