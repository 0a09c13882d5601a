import { eq } from "drizzle-orm";
import { graphNoteExtractions, notes } from "../../db/schema";
import type { Database } from "../../db/client";
import type { ExtractorIdentity } from "./create-extractor";
import type { NoteForExtraction } from "./extraction";
import { noteContentHash } from "./note-hash";

/**
 * The user's notes, and those this build extracts: a full build all of them (except what this very
 * build already did before an interruption); an incremental one those new, changed, failed last
 * time, or extracted by an older extractor, model or prompt version.
 */
export async function notesToExtract(
  db: Database,
  build: { id: number; userId: number; mode: "full" | "incremental" },
  identity: ExtractorIdentity,
): Promise<{ all: { note: NoteForExtraction; hash: string }[]; todo: { note: NoteForExtraction; hash: string }[]; outdated: number }> {
  const all = await loadNotes(db, build.userId);
  const saved = new Map(
    (
      await db
        .select({
          noteId: graphNoteExtractions.noteId,
          hash: graphNoteExtractions.contentHash,
          buildId: graphNoteExtractions.buildId,
          status: graphNoteExtractions.status,
          extractor: graphNoteExtractions.extractor,
          model: graphNoteExtractions.model,
          promptVersion: graphNoteExtractions.promptVersion,
        })
        .from(graphNoteExtractions)
        .where(eq(graphNoteExtractions.userId, build.userId))
    ).map((row) => [row.noteId, row]),
  );
  let outdated = 0;
  const todo = all.filter(({ note, hash }) => {
    const previous = saved.get(note.id);
    if (!previous) return true;
    const changed = previous.hash !== hash || previous.status !== "ok";
    const stale = previous.extractor !== identity.extractor || previous.model !== (identity.model ?? "") || previous.promptVersion !== identity.promptVersion;
    if (stale && !changed) outdated++;
    if (build.mode === "full") return previous.buildId !== build.id;
    return changed || stale;
  });
  return { all, todo, outdated };
}

async function loadNotes(db: Database, userId: number): Promise<{ note: NoteForExtraction; hash: string }[]> {
  const rows = await db
    .select({ id: notes.id, title: notes.title, content: notes.content, tags: notes.tags })
    .from(notes)
    .where(eq(notes.userId, userId))
    .orderBy(notes.id);
  return rows.map((row) => ({
    note: { id: row.id, title: row.title, content: row.content, tags: JSON.parse(row.tags) as string[] },
    hash: noteContentHash(row),
  }));
}

