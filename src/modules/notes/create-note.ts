import type { z } from "zod";
import { notes } from "../../db/schema";
import type { Database } from "../../db/client";
import { plainTextExcerpt } from "./excerpt";
import { toNoteRecord } from "./note-record";
import type { createNoteInput, NoteRecord } from "./schemas";

/** One INSERT: the tag index and counters follow from triggers in the same statement. */
export async function createNote({ ctx, input }: { ctx: { db: Database; userId: number }; input: z.infer<typeof createNoteInput> }): Promise<NoteRecord> {
  const now = Date.now();
  const [row] = await ctx.db
    .insert(notes)
    .values({
      userId: ctx.userId,
      title: input.title,
      content: input.content,
      excerpt: plainTextExcerpt(input.content),
      tags: JSON.stringify(input.tags),
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return toNoteRecord(row!);
}
