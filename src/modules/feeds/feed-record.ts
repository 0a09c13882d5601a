import { and, desc, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { feeds } from "../../db/schema";
import { NotFoundError } from "../errors";
import type { FeedRecord } from "./schemas";

export type FeedRow = typeof feeds.$inferSelect;
type Ctx = { db: Database; userId: number };

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function toFeedRecord(row: FeedRow, counts: { seen: number; imported: number }): FeedRecord {
  return {
    id: row.id,
    url: row.url,
    title: row.title,
    site_url: row.siteUrl,
    kind: row.kind,
    tags: JSON.parse(row.tags) as string[],
    interval_minutes: row.intervalMinutes,
    backfill: row.backfill,
    paused: row.paused,
    last_fetched_at: iso(row.lastFetchedAt),
    next_fetch_at: row.paused ? null : iso(row.nextFetchAt),
    last_error: row.lastError,
    items_seen: counts.seen,
    items_imported: counts.imported,
    created_at: iso(row.createdAt)!,
  };
}

/** Distinct items ever read, and the notes made from them (their task completed with a note). */
// Written out: drizzle leaves column names unqualified inside a subquery, and both tables have `id`.
const seenCount = sql<number>`(select count(*) from feed_items as item where item.feed_id = "feeds"."id")`;
const importedCount = sql<number>`(select count(*) from feed_items as item join import_tasks as task on task.id = item.task_id
  where item.feed_id = "feeds"."id" and task.status = 'completed' and task.note_id is not null)`;

/** The user's feeds with their counts, newest subscription first. */
export async function feedRecords(ctx: Ctx, page: { limit: number; offset: number }): Promise<FeedRecord[]> {
  const rows = await ctx.db
    .select({ row: feeds, seen: seenCount, imported: importedCount })
    .from(feeds)
    .where(eq(feeds.userId, ctx.userId))
    .orderBy(desc(feeds.createdAt), desc(feeds.id))
    .limit(page.limit)
    .offset(page.offset);
  return rows.map(({ row, seen, imported }) => toFeedRecord(row, { seen: Number(seen), imported: Number(imported) }));
}

/** One of the user's feeds with its counts; another user's is missing. */
export async function feedRecord(ctx: Ctx, id: number): Promise<FeedRecord> {
  const [found] = await ctx.db
    .select({ row: feeds, seen: seenCount, imported: importedCount })
    .from(feeds)
    .where(and(eq(feeds.id, id), eq(feeds.userId, ctx.userId)));
  if (!found) throw new NotFoundError(`Feed ${id}`);
  return toFeedRecord(found.row, { seen: Number(found.seen), imported: Number(found.imported) });
}

export async function ownFeed(ctx: Ctx, id: number): Promise<FeedRow> {
  const [row] = await ctx.db.select().from(feeds).where(and(eq(feeds.id, id), eq(feeds.userId, ctx.userId)));
  if (!row) throw new NotFoundError(`Feed ${id}`);
  return row;
}
