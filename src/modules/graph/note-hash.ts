import { createHash } from "node:crypto";

/** What an incremental build compares: a note is re-extracted when its title, content or tags change. */
export function noteContentHash(note: { title: string; content: string; tags: string }): string {
  return createHash("sha256").update(JSON.stringify([note.title, note.content, note.tags])).digest("hex");
}
