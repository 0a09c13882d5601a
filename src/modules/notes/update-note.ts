import { and, eq } from "drizzle-orm";
import type { z } from "zod";
import { notes } from "../../db/schema";
import type { Database } from "../../db/client";
import { InvalidInputError, NotFoundError } from "../errors";
import { indexNote } from "../search/index-notes";
import { plainTextExcerpt } from "./excerpt";
import { toNoteRecord } from "./note-record";
import type { NoteRecord, updateNoteInput } from "./schemas";

/** Partial update: omitted fields keep their value; the owner check is part of the UPDATE itself. */
export async function updateNote({ ctx, input }: { ctx: { db: Database; userId: number }; input: z.infer<typeof updateNoteInput> }): Promise<NoteRecord> {
  const { id, title, content, tags } = input;
  if (title === undefined && content === undefined && tags === undefined) {
    throw new InvalidInputError("Nothing to update: give at least one of title, content, tags");
  }
  const row = await ctx.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(notes)
      .set({
        updatedAt: Date.now(),
        ...(title !== undefined && { title }),
        ...(content !== undefined && { content, excerpt: plainTextExcerpt(content) }),
        ...(tags !== undefined && { tags: JSON.stringify(tags) }),
      })
      .where(and(eq(notes.id, id), eq(notes.userId, ctx.userId)))
      .returning();
    if (!updated) throw new NotFoundError(`Note ${id}`);
    // The search entry changes with the note, so a search never finds the old text.
    await indexNote(tx, { ...updated, tags: JSON.parse(updated.tags) as string[] });
    return updated;
  });
  return toNoteRecord(row);
}
