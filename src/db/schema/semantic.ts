import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./auth";
import { notes } from "./notes";

/**
 * One embedding model as configured (model and dimensions): its vectors live in a table of their
 * own, `table_name`, made when the model's first vectors arrive (a libSQL vector column has a fixed
 * dimension), so one model's vectors are never compared with another's.
 */
export const semanticSpaces = sqliteTable("semantic_spaces", {
  key: text("key").primaryKey(),
  model: text("model").notNull(),
  dimensions: integer("dimensions").notNull(),
  tableName: text("table_name").notNull(),
  createdAt: integer("created_at").notNull(),
});

/**
 * The notes whose passages, title and tags are embedded in `space_key` as their text is now. An
 * edit deletes the row (a trigger, so every writer is covered): a note without a row for the
 * current space is pending.
 */
export const semanticNotes = sqliteTable(
  "semantic_notes",
  {
    noteId: integer("note_id")
      .primaryKey()
      .references(() => notes.id, { onDelete: "cascade" }),
    userId: integer("user_id").notNull(),
    spaceKey: text("space_key").notNull(),
    embeddedAt: integer("embedded_at").notNull(),
  },
  (table) => [index("semantic_notes_user_space_idx").on(table.userId, table.spaceKey)],
);

/** Notes deleted (or trashed) since their vectors were last cleared: filled by a trigger, emptied by the embedding job. */
export const semanticRemoved = sqliteTable(
  "semantic_removed",
  {
    noteId: integer("note_id").primaryKey(),
    userId: integer("user_id").notNull(),
  },
  (table) => [index("semantic_removed_user_idx").on(table.userId)],
);

/**
 * Per user and space: `ready_at` once every note the user had was embedded (until then search
 * stays lexical), and the last error the embeddings server gave while embedding the user's notes.
 */
export const semanticUsers = sqliteTable(
  "semantic_users",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    spaceKey: text("space_key").notNull(),
    readyAt: integer("ready_at"),
    error: text("error"),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.spaceKey] })],
);
