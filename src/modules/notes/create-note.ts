import type { z } from "zod";
import { notes } from "../../db/schema";
import type { Database } from "../../db/client";
import { indexNote } from "../search/index-notes";
import { plainTextExcerpt } from "./excerpt";
import { toNoteRecord } from "./note-record";
import type { createNoteInput, NoteRecord, NoteSource } from "./schemas";

/** The tag index and counters follow from triggers; the search entry is written in the same transaction. */
export async function createNote({ ctx, input }: { ctx: { db: Database; userId: number }; input: z.infer<typeof createNoteInput> }): Promise<NoteRecord> {
  const row = await ctx.db.transaction(async (tx) => {
    const [inserted] = await tx.insert(notes).values(newNoteRow(ctx.userId, input)).returning();
    await indexNote(tx, { ...inserted!, tags: input.tags });
    return inserted!;
  });
  return toNoteRecord(row);
}

/** The row of a new note from already-validated fields; only imports give a `source`. */
export function newNoteRow(userId: number, input: { title: string; content: string; tags: string[]; source?: NoteSource }, now = Date.now()) {
  const source = input.source ?? null;
  return {
    userId,
    title: input.title,
    content: input.content,
    excerpt: plainTextExcerpt(input.content),
    tags: JSON.stringify(input.tags),
    sourcePlatform: source?.platform ?? null,
    sourceUrl: source?.url ?? null,
    sourceAuthor: source?.author ?? null,
    sourcePublishedAt: source?.published_at ? Date.parse(source.published_at) : null,
    createdAt: now,
    updatedAt: now,
  };
}
