import { and, count, desc, eq, getTableColumns } from "drizzle-orm";
import type { z } from "zod";
import { importTasks } from "../../db/schema";
import type { Database } from "../../db/client";
import { NotFoundError } from "../errors";
import { pageOf, type Page } from "../pagination";
import type { listTasksInput, TaskRecord } from "./schemas";
import { toTaskRecord } from "./task-record";

/** Newest first; the row's pasted content is never read for a list. */
export async function listTasks({ ctx, input }: { ctx: { db: Database; userId: number }; input: z.infer<typeof listTasksInput> }): Promise<Page<TaskRecord>> {
  const { content: _content, ...columns } = getTableColumns(importTasks);
  const [rows, [total]] = await ctx.db.batch([
    ctx.db.select(columns).from(importTasks).where(eq(importTasks.userId, ctx.userId))
      .orderBy(desc(importTasks.createdAt), desc(importTasks.id)).limit(input.size).offset((input.page - 1) * input.size),
    ctx.db.select({ total: count() }).from(importTasks).where(eq(importTasks.userId, ctx.userId)),
  ]);
  return pageOf(rows.map((row) => toTaskRecord({ ...row, content: null })), total?.total ?? 0, input);
}

export async function getTask({ ctx, input }: { ctx: { db: Database; userId: number }; input: { id: number } }): Promise<TaskRecord> {
  const [row] = await ctx.db.select().from(importTasks).where(and(eq(importTasks.id, input.id), eq(importTasks.userId, ctx.userId)));
  if (!row) throw new NotFoundError(`Task ${input.id}`);
  return toTaskRecord(row);
}
