import { and, eq, sql } from "drizzle-orm";
import { notes } from "../../db/schema";
import type { Database } from "../../db/client";
import { preparedPerDatabase } from "../../db/prepared";
import { NotFoundError } from "../errors";
import { toNoteRecord } from "./note-record";
import type { NoteRecord } from "./schemas";

const statements = preparedPerDatabase((db) => ({
  note: db
    .select()
    .from(notes)
    .where(and(eq(notes.id, sql.placeholder("id")), eq(notes.userId, sql.placeholder("userId"))))
    .prepare(),
}));

export async function getNote({ ctx, input }: { ctx: { db: Database; userId: number }; input: { id: number } }): Promise<NoteRecord> {
  const row = await statements(ctx.db).note.get({ id: input.id, userId: ctx.userId });
  if (!row) throw new NotFoundError(`Note ${input.id}`);
  return toNoteRecord(row);
}
