import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { notes } from "./notes";

/**
 * What OCR read in a picture, kept by the SHA-256 of its bytes: the same picture again — a
 * re-import, another note, another user's — is never read twice. The text is a function of the
 * bytes alone, so sharing it across users tells no one anything their own picture does not.
 */
export const ocrTexts = sqliteTable("ocr_texts", {
  sha256: text("sha256").primaryKey(),
  /** The lines in reading order, one a line; empty for a picture without text. */
  text: text("text").notNull().default(""),
  /** Why the picture cannot be read (not a picture, too large, corrupt); null when it was read. */
  unreadable: text("unreadable"),
  createdAt: integer("created_at").notNull(),
});

/**
 * The pictures whose text a note has been given, so a picture is written into its note once: a
 * person who then edits or removes that text is not overruled, and only new pictures start a job.
 */
export const ocrNotes = sqliteTable("ocr_notes", {
  noteId: integer("note_id")
    .primaryKey()
    .references(() => notes.id, { onDelete: "cascade" }),
  /** JSON array of the file ids already read into the note. */
  fileIds: text("file_ids").notNull().default("[]"),
  updatedAt: integer("updated_at").notNull(),
});
