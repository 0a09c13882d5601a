import { and, eq, sql } from "drizzle-orm";
import { notes } from "../../db/schema";
import type { Database } from "../../db/client";
import { packedRow } from "../../db/packed-row";
import { preparedPerDatabase } from "../../db/prepared";
import { readStatements } from "../../db/read-statements";
import { NotFoundError } from "../errors";
import { noteColumns, toNoteRecord } from "./note-record";
import type { NoteRecord } from "./schemas";

// Every field but the content in one JSON column (see packedRow); the content, up to 1 MiB, as itself.
const noteRow = packedRow(noteColumns);

const statements = preparedPerDatabase((db) => ({
  note: db
    .select({ row: noteRow.column, content: notes.content })
    .from(notes)
    .where(and(eq(notes.id, sql.placeholder("id")), eq(notes.userId, sql.placeholder("userId"))))
    .prepare(),
}));

export async function getNote({ ctx, input }: { ctx: { db: Database; userId: number }; input: { id: number } }): Promise<NoteRecord> {
  const found = await readStatements(ctx.db).row(statements(ctx.db).note, { id: input.id, userId: ctx.userId });
  if (!found) throw new NotFoundError(`Note ${input.id}`);
  const [row, content] = found as [string, string];
  return toNoteRecord({ ...noteRow.unpack(row), content });
}
