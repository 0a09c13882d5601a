import type { z } from "zod";
import { importTasks } from "../../db/schema";
import type { Database } from "../../db/client";
import type { ChangePublisher } from "../events/change";
import { log } from "../../log";
import type { ImportQueue } from "./import-queue";
import type { createTaskInput, TaskRecord } from "./schemas";
import { toTaskRecord } from "./task-record";

/**
 * Writes the task as pending, then queues its job (outbox style). If the queue is unreachable the
 * task stays pending and the reconciler queues it later, so a created task is never lost.
 */
export async function createTask({
  ctx,
  input,
}: {
  ctx: { db: Database; userId: number; importQueue: ImportQueue; changes: ChangePublisher };
  input: z.infer<typeof createTaskInput>;
}): Promise<TaskRecord> {
  const now = Date.now();
  const [row] = await ctx.db
    .insert(importTasks)
    .values({
      userId: ctx.userId,
      platform: input.platform,
      url: input.url ?? null,
      content: input.content ?? null,
      status: "pending",
      progress: 0,
      message: "Queued",
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  const queued = await ctx.importQueue.enqueueImport({ id: row!.id, userId: ctx.userId }).catch((error: unknown) => {
    log.warn(`could not queue import task ${row!.id}; the reconciler will retry`, error);
    return false;
  });
  await ctx.changes.publish({ userId: ctx.userId, kind: "task", id: row!.id });
  return toTaskRecord(queued ? row! : { ...row!, message: "Queued (waiting for the job queue)" });
}
