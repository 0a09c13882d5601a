import { integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Finished transcripts, kept by media (`bilibili:<bvid>:<part>`, `douyin:<id>`, an upload's user
 * and hash, pasted media's user and key): importing the same video again, by anyone, reuses it
 * without asking the server.
 */
export const transcripts = sqliteTable("transcripts", {
  mediaKey: text("media_key").primaryKey(),
  /** The section's first line: `speech-to-text (<model>, <language>), machine-generated`. */
  source: text("source").notNull(),
  /** JSON `[[start, end, text], …]` on the recording's clock; null when untimed (then `text`). */
  segments: text("segments"),
  text: text("text").notNull().default(""),
  /** Seconds of the recording. */
  duration: real("duration").notNull(),
  /** Seconds transcribed, when the recording was longer than STT_MAX_MINUTES; null when whole. */
  truncatedAt: real("truncated_at"),
  createdAt: integer("created_at").notNull(),
});

/**
 * Pieces already transcribed, so a worker killed mid-recording resumes without sending them again.
 * `plan` names the cutting (chunk, cap, overlap): another configuration makes other pieces.
 */
export const transcriptPieces = sqliteTable(
  "transcript_pieces",
  {
    mediaKey: text("media_key").notNull(),
    plan: text("plan").notNull(),
    index: integer("idx").notNull(),
    start: real("start").notNull(),
    end: real("end").notNull(),
    from: real("from_seconds").notNull(),
    /** JSON segments on the recording's clock; null when the server answered untimed text. */
    segments: text("segments"),
    text: text("text").notNull().default(""),
    language: text("language"),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.mediaKey, table.plan, table.index] })],
);
