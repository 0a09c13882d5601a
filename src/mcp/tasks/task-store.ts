import { and, eq, lt } from "drizzle-orm";
import { mcpTasks } from "../../db/schema";
import type { Database } from "../../db/client";
import { TASK_TOOLS, type TaskTool } from "./task-tools";

export type TaskRow = typeof mcpTasks.$inferSelect;

/**
 * Records a new task for the user and answers its row. The id is a random UUID (122 bits), so no
 * one can guess another's; every read is by id and user. Expired tasks of anyone go at the same
 * time: creating tasks is what makes rows, so it is also what clears them.
 */
export async function insertTask(db: Database, task: { userId: number; tool: TaskTool; recordId: number | null; statusMessage?: string }): Promise<TaskRow> {
  const now = Date.now();
  const { ttlMs } = TASK_TOOLS[task.tool];
  await db.delete(mcpTasks).where(lt(mcpTasks.expiresAt, now));
  const [row] = await db
    .insert(mcpTasks)
    .values({
      id: crypto.randomUUID(),
      userId: task.userId,
      tool: task.tool,
      recordId: task.recordId,
      status: "working",
      statusMessage: task.statusMessage ?? null,
      ttlMs,
      createdAt: now,
      updatedAt: now,
      expiresAt: now + ttlMs,
    })
    .returning();
  return row!;
}

/** The user's task with this id, expired or not (the caller tells the two apart); another user's is not found. */
export async function findTask(db: Database, userId: number, taskId: string): Promise<TaskRow | undefined> {
  const [row] = await db.select().from(mcpTasks).where(and(eq(mcpTasks.id, taskId), eq(mcpTasks.userId, userId)));
  return row;
}

export async function deleteTask(db: Database, taskId: string): Promise<void> {
  await db.delete(mcpTasks).where(eq(mcpTasks.id, taskId));
}

/**
 * Ends a task still `working`: a cancellation and the end of an ask race, and whichever writes
 * first stands. Answers whether this write was the one.
 */
export async function endTask(
  db: Database,
  taskId: string,
  end: { status: "completed" | "failed" | "cancelled"; statusMessage: string; result?: unknown; error?: { code: number; message: string } },
): Promise<boolean> {
  const ended = await db
    .update(mcpTasks)
    .set({
      status: end.status,
      statusMessage: end.statusMessage,
      result: end.result === undefined ? null : JSON.stringify(end.result),
      error: end.error === undefined ? null : JSON.stringify(end.error),
      updatedAt: Date.now(),
    })
    .where(and(eq(mcpTasks.id, taskId), eq(mcpTasks.status, "working")))
    .returning({ id: mcpTasks.id });
  return ended.length > 0;
}
