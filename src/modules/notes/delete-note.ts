import { and, eq } from "drizzle-orm";
import { notes } from "../../db/schema";
import type { Database } from "../../db/client";
import { NotFoundError } from "../errors";
import { removeNoteFromGraph } from "../graph/remove-note-from-graph";

export async function deleteNote({ ctx, input }: { ctx: { db: Database; userId: number }; input: { id: number } }): Promise<void> {
  // libSQL opens it as a "write" transaction (BEGIN IMMEDIATE): no graph read sees the note half gone.
  await ctx.db.transaction(async (tx) => {
    await removeNoteFromGraph(tx, { userId: ctx.userId, noteId: input.id });
    const deleted = await tx
      .delete(notes)
      .where(and(eq(notes.id, input.id), eq(notes.userId, ctx.userId)))
      .returning({ id: notes.id });
    if (deleted.length === 0) throw new NotFoundError(`Note ${input.id}`);
  });
}
