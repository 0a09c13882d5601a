import { and, eq } from "drizzle-orm";
import { notes } from "../../db/schema";
import type { Database } from "../../db/client";
import { NotFoundError } from "../errors";
import type { FileStorage } from "../files/blob-store";
import { releaseFilesOfDeletedNote } from "../files/release-files";
import { removeNoteFromGraph } from "../graph/remove-note-from-graph";

export async function deleteNote({ ctx, input }: { ctx: { db: Database; userId: number; files?: FileStorage }; input: { id: number } }): Promise<void> {
  // libSQL opens it as a "write" transaction (BEGIN IMMEDIATE): no graph read sees the note half gone.
  const content = await ctx.db.transaction(async (tx) => {
    await removeNoteFromGraph(tx, { userId: ctx.userId, noteId: input.id });
    const deleted = await tx
      .delete(notes)
      .where(and(eq(notes.id, input.id), eq(notes.userId, ctx.userId)))
      .returning({ content: notes.content });
    if (deleted.length === 0) throw new NotFoundError(`Note ${input.id}`);
    return deleted[0]!.content;
  });
  // After the note is gone: a file another note still names is kept, whatever order deletes run in.
  await releaseFilesOfDeletedNote({ db: ctx.db, storage: ctx.files }, { userId: ctx.userId, noteId: input.id, content });
}
