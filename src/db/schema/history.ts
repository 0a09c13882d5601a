import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./auth";

/**
 * The texts a note had before, newest `version` highest. `delta` (JSON splices, see
 * modules/history/text-delta.ts) turns the text that replaced a version back into it: the newest
 * version's applies to the note's content, each older one's to the version after it, so a
 * version costs what its edit changed. `note_id` is not a foreign key: a note in the trash keeps
 * its history, and purging deletes it.
 */
export const noteVersions = sqliteTable(
  "note_versions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    noteId: integer("note_id").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    title: text("title").notNull(),
    /** JSON array, as `notes.tags`. */
    tags: text("tags").notNull(),
    /** UTF-8 bytes of the version's content. */
    size: integer("size").notNull(),
    delta: text("delta").notNull(),
    /** When this text was written, and when it was replaced. */
    createdAt: integer("created_at").notNull(),
    replacedAt: integer("replaced_at").notNull(),
    /** Who wrote this text: `session`, `token`, `connector`, `import` or `restore`, and the token's or client's name. */
    byKind: text("by_kind").notNull(),
    byName: text("by_name"),
  },
  (table) => [uniqueIndex("note_versions_note_version_idx").on(table.noteId, table.version), index("note_versions_user_idx").on(table.userId)],
);

/**
 * The stored files each kept version shows (its text's `/api/files/{id}` links), so a file that
 * only an older version shows is kept until that version goes. Written with the version; deleted
 * with it by a trigger, which also queues the files in `file_releases` (see the custom migration).
 */
export const noteVersionFiles = sqliteTable(
  "note_version_files",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    fileId: integer("file_id").notNull(),
    noteId: integer("note_id").notNull(),
    version: integer("version").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.userId, table.fileId, table.noteId, table.version] }),
    index("note_version_files_version_idx").on(table.noteId, table.version),
  ],
);

/**
 * Notes whose versions were written before `note_version_files` existed: their files are read from
 * the versions' texts the first time one of the user's files is let go (modules/files/release-files.ts).
 */
export const versionFilesBacklog = sqliteTable("version_files_backlog", {
  noteId: integer("note_id").primaryKey(),
  userId: integer("user_id")
    .notNull()
    .references(() => users.id, { onDelete: "cascade" }),
});

/**
 * Notes in the trash: the note's row as it was (its id kept for the restore), with its import
 * sources, out of `notes` so every list, search, export, question and graph leaves it at once.
 */
export const trashedNotes = sqliteTable(
  "trashed_notes",
  {
    id: integer("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    content: text("content").notNull(),
    excerpt: text("excerpt").notNull(),
    tags: text("tags").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    sourcePlatform: text("source_platform"),
    sourceUrl: text("source_url"),
    sourceAuthor: text("source_author"),
    sourcePublishedAt: integer("source_published_at"),
    writtenBy: text("written_by"),
    /** JSON `[[source_key, hash, note_updated_at], …]`: the re-import records, put back on restore. */
    importSources: text("import_sources").notNull().default("[]"),
    deletedAt: integer("deleted_at").notNull(),
  },
  (table) => [index("trashed_notes_user_deleted_idx").on(table.userId, table.deletedAt), index("trashed_notes_deleted_idx").on(table.deletedAt)],
);
