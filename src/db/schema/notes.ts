import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./auth";

export const notes = sqliteTable(
  "notes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    content: text("content").notNull(),
    /** Plain-text start of the content, computed on write so list pages never read content. */
    excerpt: text("excerpt").notNull(),
    /** JSON array, in the user's order; `note_tags` indexes the same tags for filtering. */
    tags: text("tags").notNull().default("[]"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** Where an imported note came from (all null for a note written here); set only by imports. */
    sourcePlatform: text("source_platform"),
    sourceUrl: text("source_url"),
    sourceAuthor: text("source_author"),
    /** Epoch milliseconds, like the other timestamps. */
    sourcePublishedAt: integer("source_published_at"),
    /** Who wrote the current text (JSON `{kind, name, key}`, see modules/history/writer.ts); null for notes older than history. */
    writtenBy: text("written_by"),
  },
  (table) => [
    index("notes_user_updated_idx").on(table.userId, sql`${table.updatedAt} desc`, sql`${table.id} desc`),
    // (user_id, rowid): the export's keyset pages (`id > ?` in id order) are ranges, not sorts.
    index("notes_user_id_idx").on(table.userId),
  ],
);

/**
 * One row per (note, tag), with the note's `updated_at` copied so a tag page is one index range.
 * Derived from `notes.tags` by triggers (see the custom migration); never written by the app.
 */
export const noteTags = sqliteTable(
  "note_tags",
  {
    noteId: integer("note_id")
      .notNull()
      .references(() => notes.id, { onDelete: "cascade" }),
    userId: integer("user_id").notNull(),
    tag: text("tag").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.noteId, table.tag] }),
    index("note_tags_user_tag_updated_idx").on(
      table.userId,
      table.tag,
      sql`${table.updatedAt} desc`,
      sql`${table.noteId} desc`,
    ),
  ],
);

/** Per-user and per-tag totals, kept by triggers (see the custom migration) so `total` is O(1). */
export const noteCounts = sqliteTable("note_counts", {
  userId: integer("user_id").primaryKey(),
  total: integer("total").notNull(),
});

export const tagCounts = sqliteTable(
  "tag_counts",
  {
    userId: integer("user_id").notNull(),
    tag: text("tag").notNull(),
    total: integer("total").notNull(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.tag] })],
);
