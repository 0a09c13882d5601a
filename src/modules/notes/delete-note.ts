import { and, eq } from "drizzle-orm";
import { notes } from "../../db/schema";
import type { Database } from "../../db/client";
import { NotFoundError } from "../errors";

export async function deleteNote({ ctx, input }: { ctx: { db: Database; userId: number }; input: { id: number } }): Promise<void> {
  const deleted = await ctx.db
    .delete(notes)
    .where(and(eq(notes.id, input.id), eq(notes.userId, ctx.userId)))
    .returning({ id: notes.id });
  if (deleted.length === 0) throw new NotFoundError(`Note ${input.id}`);
}
