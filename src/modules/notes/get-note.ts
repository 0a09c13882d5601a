import { and, eq } from "drizzle-orm";
import { notes } from "../../db/schema";
import type { Database } from "../../db/client";
import { NotFoundError } from "../errors";
import { toNoteRecord } from "./note-record";
import type { NoteRecord } from "./schemas";

export async function getNote({ ctx, input }: { ctx: { db: Database; userId: number }; input: { id: number } }): Promise<NoteRecord> {
  const [row] = await ctx.db.select().from(notes).where(and(eq(notes.id, input.id), eq(notes.userId, ctx.userId)));
  if (!row) throw new NotFoundError(`Note ${input.id}`);
  return toNoteRecord(row);
}
