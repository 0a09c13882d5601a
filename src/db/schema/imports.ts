import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
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
    /** JSON `{created, updated, unchanged, skipped, failed}` once known. */
    counts: text("counts"),
    /** JSON `[{name, error}]`, at most 100. */
    failures: text("failures").notNull().default("[]"),
    /** An archive task's uploaded file, by name under DATA_DIR/archives; deleted when the task ends. */
    archiveFile: text("archive_file"),
    /** An archive task's `format`: auto, rhizome or markdown. */
    archiveFormat: text("archive_format"),
    /** How many archive entries are done: a resumed job skips them (saved with their notes). */
    cursor: integer("cursor").notNull().default(0),
    /** JSON of a transcription still to do (the fetched document and its media); null when none. */
    transcription: text("transcription"),
    /** Seconds of audio this task had transcribed, and the speech-to-text requests it made (usage on `me`). */
    sttSeconds: integer("stt_seconds").notNull().default(0),
    sttRequests: integer("stt_requests").notNull().default(0),
    /** The size of the upload (a recording, an archive) waiting for this task: counted against UPLOADS_PENDING_MAX_MB until the task ends. */
    uploadBytes: integer("upload_bytes"),
    /**
     * The feed whose item this task imports; null for every other task (and once that feed is
     * deleted: no foreign key, as SQLite cannot add one to an existing table with its action).
     */
    feedId: integer("feed_id"),
    /** JSON of a document read already (a feed item's full text, a podcast episode): saved as the note, no page fetched. */
    document: text("document"),
    /** JSON array of tags the note gets besides its platform's and its page's own (a feed's tags and `feed`). */
    tags: text("tags"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    startedAt: integer("started_at"),
    finishedAt: integer("finished_at"),
  },
  (table) => [
    index("import_tasks_user_created_idx").on(table.userId, sql`${table.createdAt} desc`, sql`${table.id} desc`),
    index("import_tasks_status_idx").on(table.status, table.updatedAt),
    index("import_tasks_feed_idx").on(table.feedId),
  ],
);

/**
 * What each imported note came from, for re-imports: one row per (user, source key) — a canonical
 * URL or platform post id, an archive path, or our export's note id. `hash` is what the import
 * wrote, `note_updated_at` the note's `updated_at` right after, so an edit here shows as a change.
 */
export const importSources = sqliteTable(
  "import_sources",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    sourceKey: text("source_key").notNull(),
    noteId: integer("note_id")
      .notNull()
      .references(() => notes.id, { onDelete: "cascade" }),
    hash: text("hash").notNull(),
    noteUpdatedAt: integer("note_updated_at").notNull(),
  },
  (table) => [uniqueIndex("import_sources_user_key_idx").on(table.userId, table.sourceKey), index("import_sources_note_idx").on(table.noteId)],
);
