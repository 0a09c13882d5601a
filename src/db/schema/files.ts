import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./auth";

/**
 * A stored image. The bytes live on disk under FILES_DIR by SHA-256 (shared by every row with that
 * hash); a row is one user's claim on them, at most one per (user, hash), and counts in their quota.
 */
export const files = sqliteTable(
  "files",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    sha256: text("sha256").notNull(),
    mime: text("mime").notNull(),
    size: integer("size").notNull(),
    createdAt: integer("created_at").notNull(),
    /**
     * The import task that stored it, until that task's note refers to it; a task that ends
     * without a note takes its pending files with it, so a killed import leaves no orphan rows.
     */
    pendingTaskId: integer("pending_task_id"),
  },
  (table) => [
    uniqueIndex("files_user_sha256_idx").on(table.userId, table.sha256),
    index("files_pending_task_idx").on(table.pendingTaskId),
  ],
);

/**
 * Files that lost a reference (a purged note's text, a pruned or purged version) and go unless
 * something still shows them; worked through by `releaseFiles` after a purge and hourly.
 */
export const fileReleases = sqliteTable(
  "file_releases",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    fileId: integer("file_id").notNull(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.fileId] })],
);
