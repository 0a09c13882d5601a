import { and, asc, desc, eq, gt, sql } from "drizzle-orm";
import { tagCounts } from "../../db/schema";
import type { Database } from "../../db/client";
import { preparedPerDatabase } from "../../db/prepared";
import { readStatements } from "../../db/read-statements";
import type { TagList } from "./schemas";

// tag_counts is kept by triggers on note_tags (see the derived-tag-index migration), so the list is
// one primary-key range of the user's rows, never a scan of their notes.
const statements = preparedPerDatabase((db) => ({
  tags: db
    .select({ tag: tagCounts.tag, count: tagCounts.total })
    .from(tagCounts)
    .where(and(eq(tagCounts.userId, sql.placeholder("userId")), gt(tagCounts.total, 0)))
    .orderBy(desc(tagCounts.total), asc(tagCounts.tag))
    .prepare(),
}));

/** The user's tags with how many notes carry each: most used first, then by name. */
export async function listTags({ ctx }: { ctx: { db: Database; userId: number } }): Promise<TagList> {
  const items = await readStatements(ctx.db).all(statements(ctx.db).tags, { userId: ctx.userId });
  return { items };
}
