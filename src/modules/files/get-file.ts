import { and, eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { files } from "../../db/schema";
import { NotFoundError } from "../errors";
import type { FileRow } from "./file-record";

/** One of the user's files; another user's is missing, as the contract wants. */
export async function getFile({ ctx, input }: { ctx: { db: Database; userId: number }; input: { id: number } }): Promise<FileRow> {
  const [row] = await ctx.db.select().from(files).where(and(eq(files.id, input.id), eq(files.userId, ctx.userId)));
  if (!row) throw new NotFoundError(`File ${input.id}`);
  return row;
}
