import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./auth";
import { notes } from "./notes";

/**
 * An import task. The row lives here and its job in Postgres; they cannot share a transaction, so
 * the row is written first (pending) and the reconciler re-queues rows whose job went missing.
 */
export const importTasks = sqliteTable(
  "import_tasks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    platform: text("platform").notNull(),
    url: text("url"),
    /** Pasted content, kept until the import finishes (then cleared: the note has it). */
    content: text("content"),
    status: text("status", { enum: ["pending", "running", "completed", "failed"] }).notNull(),
    progress: integer("progress").notNull().default(0),
    message: text("message").notNull(),
    error: text("error"),
    noteId: integer("note_id").references(() => notes.id, { onDelete: "set null" }),
    /** How often the reconciler had to queue this task again; bounded so a poison task ends failed. */
    requeues: integer("requeues").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    startedAt: integer("started_at"),
    finishedAt: integer("finished_at"),
  },
  (table) => [
    index("import_tasks_user_created_idx").on(table.userId, sql`${table.createdAt} desc`, sql`${table.id} desc`),
    index("import_tasks_status_idx").on(table.status, table.updatedAt),
  ],
);
