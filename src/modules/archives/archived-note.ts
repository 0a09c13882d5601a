import type { NoteSource } from "../notes/schemas";
import type { IncomingNote } from "./reimport";

/** What one archive entry becomes: the note to write, and the key that finds it again on re-import. */
export type ArchivedNote = IncomingNote & { sourceKey: string };

/** An archive note's `source` when its file names none. */
export const ARCHIVE_SOURCE: NonNullable<NoteSource> = { platform: "archive", url: null, author: null, published_at: null };

/** A front matter time as epoch ms: ISO dates and times; a date alone is midnight UTC. */
export function parseTime(value: unknown): number | null {
  if (typeof value !== "string" && typeof value !== "number") return null;
  const text = String(value).trim();
  const dateOnly = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const time = dateOnly ? Date.UTC(Number(dateOnly[1]), Number(dateOnly[2]) - 1, Number(dateOnly[3])) : Date.parse(text);
  return Number.isFinite(time) ? time : null;
}
