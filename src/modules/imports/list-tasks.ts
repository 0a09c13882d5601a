import { and, count, desc, eq, getTableColumns, sql } from "drizzle-orm";
import type { z } from "zod";
import { importTasks } from "../../db/schema";
import type { Database } from "../../db/client";
import { preparedPerDatabase } from "../../db/prepared";
import { readStatements } from "../../db/read-statements";
import { NotFoundError } from "../errors";
import { pageOf, type Page } from "../pagination";
import type { listTasksInput, TaskRecord } from "./schemas";
import { toTaskRecord } from "./task-record";

const userId = sql.placeholder("userId");
const { content: _content, ...listColumns } = getTableColumns(importTasks);

const statements = preparedPerDatabase((db) => ({
  // The row's pasted content is never read for a list.
  page: db.select(listColumns).from(importTasks).where(eq(importTasks.userId, userId))
    .orderBy(desc(importTasks.createdAt), desc(importTasks.id)).limit(sql.placeholder("limit")).offset(sql.placeholder("offset")).prepare(),
  total: db.select({ total: count() }).from(importTasks).where(eq(importTasks.userId, userId)).prepare(),
  task: db.select().from(importTasks).where(and(eq(importTasks.id, sql.placeholder("id")), eq(importTasks.userId, userId))).prepare(),
}));

/** Newest first; the page and the count are two reads side by side, as for notes. */
export async function listTasks({ ctx, input }: { ctx: { db: Database; userId: number }; input: z.infer<typeof listTasksInput> }): Promise<Page<TaskRecord>> {
  const { page, total } = statements(ctx.db);
  const reads = readStatements(ctx.db);
  const values = { userId: ctx.userId, limit: input.size, offset: (input.page - 1) * input.size };
  const [rows, counted] = await Promise.all([reads.all(page, values), reads.get(total, values)]);
  return pageOf(rows.map((row) => toTaskRecord({ ...row, content: null })), counted?.total ?? 0, input);
}

export async function getTask({ ctx, input }: { ctx: { db: Database; userId: number }; input: { id: number } }): Promise<TaskRecord> {
  const row = await readStatements(ctx.db).get(statements(ctx.db).task, { id: input.id, userId: ctx.userId });
  if (!row) throw new NotFoundError(`Task ${input.id}`);
  return toTaskRecord(row);
}
