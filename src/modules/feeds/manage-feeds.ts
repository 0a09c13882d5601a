import { and, count, eq, inArray, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "../../db/client";
import { feeds, importTasks } from "../../db/schema";
import { log } from "../../log";
import { ConflictError, InvalidInputError, NotFoundError, UnavailableError } from "../errors";
import { pageOf } from "../pagination";
import { feedRecord, feedRecords, ownFeed } from "./feed-record";
import type { FeedServices } from "./feed-services";
import { findFeed, NotFollowableError, type FoundFeed } from "./read-feed";
import * as s from "./schemas";

export type FeedsCtx = { db: Database; userId: number; feeds?: FeedServices };

/** A subscription answers within the request's 30 s: the address and, for a page, the feed it names. */
const SUBSCRIBE_FETCH_TIMEOUT_MS = 12_000;

export function feedServices(ctx: FeedsCtx): FeedServices {
  if (!ctx.feeds) throw new UnavailableError("Feeds are not available on this server process");
  return ctx.feeds;
}

/**
 * POST /api/feeds: the address is fetched (under the import address rules) and must be, or name,
 * a feed; the feed is stored and its first fetch queued (that one imports the newest `backfill`
 * items). The same feed twice, or a 501st, is a 409.
 */
export async function subscribeFeed({ ctx, input, now = Date.now() }: { ctx: FeedsCtx; input: z.infer<typeof s.createFeedInput>; now?: number }) {
  const services = feedServices(ctx);
  await ensureRoom(ctx);
  let found: FoundFeed;
  try {
    found = await findFeed(services, new URL(input.url).href, { timeoutMs: SUBSCRIBE_FETCH_TIMEOUT_MS });
  } catch (error) {
    if (error instanceof NotFollowableError) throw new InvalidInputError(error.message);
    throw error;
  }
  const id = await insertFeed(ctx, found, { tags: input.tags ?? [], intervalMinutes: input.interval_minutes, backfill: input.backfill }, now);
  await queueFetch(services, [{ id, userId: ctx.userId }]);
  return feedRecord(ctx, id);
}

/** Refuses a subscription past the cap before anything is fetched for it. */
export async function ensureRoom(ctx: FeedsCtx): Promise<void> {
  const [row] = await ctx.db.select({ n: count() }).from(feeds).where(eq(feeds.userId, ctx.userId));
  if ((row?.n ?? 0) >= s.MAX_FEEDS_PER_USER) throw capReached();
}

const capReached = () => new ConflictError(`You follow ${s.MAX_FEEDS_PER_USER} feeds, the most an account may; unsubscribe from one first`);

/** Stores a found feed, counted and checked for a duplicate in the one statement; 409 for either. */
export async function insertFeed(ctx: FeedsCtx, found: FoundFeed, settings: { tags: string[]; intervalMinutes: number; backfill: number }, now: number): Promise<number> {
  const inserted = await ctx.db.all<{ id: number }>(sql`
    insert into ${feeds} (user_id, url, title, site_url, kind, tags, interval_minutes, backfill, paused, next_fetch_at, failures, backfilled, created_at, updated_at)
    select ${ctx.userId}, ${found.url}, ${found.parsed.title}, ${found.parsed.siteUrl}, ${found.parsed.kind}, ${JSON.stringify(settings.tags)},
      ${settings.intervalMinutes}, ${settings.backfill}, 0, ${now}, 0, 0, ${now}, ${now}
    where (select count(*) from ${feeds} where user_id = ${ctx.userId}) < ${s.MAX_FEEDS_PER_USER}
    on conflict (user_id, url) do nothing
    returning id`);
  if (inserted[0]) return inserted[0].id;
  const [existing] = await ctx.db.select({ id: feeds.id }).from(feeds).where(and(eq(feeds.userId, ctx.userId), eq(feeds.url, found.url)));
  if (existing) throw new ConflictError(`You already follow this feed (feed ${existing.id}, ${found.url})`);
  throw capReached();
}

/** The feed is fetched now; a queue that cannot take the job leaves it to the next minute's sweep (the feed is due). */
async function queueFetch(services: FeedServices, due: { id: number; userId: number }[]): Promise<void> {
  try {
    await services.queue.enqueueFetches(due);
  } catch (error) {
    log.warn(`could not queue the fetch of ${due.length} feed(s); the sweep will`, error);
  }
}

export async function listFeeds({ ctx, input }: { ctx: FeedsCtx; input: z.infer<typeof s.listFeedsInput> }) {
  const [row] = await ctx.db.select({ n: count() }).from(feeds).where(eq(feeds.userId, ctx.userId));
  const items = await feedRecords(ctx, { limit: input.size, offset: (input.page - 1) * input.size });
  return pageOf(items, row?.n ?? 0, input);
}

export const getFeed = ({ ctx, input }: { ctx: FeedsCtx; input: { id: number } }) => feedRecord(ctx, input.id);

/**
 * Omitted fields keep their value. Resuming (`paused: false`) clears the failure record and makes
 * the feed due now; a new interval counts from the last fetch.
 */
export async function updateFeed({ ctx, input, now = Date.now() }: { ctx: FeedsCtx; input: z.infer<typeof s.updateFeedInput>; now?: number }) {
  const { id, tags, interval_minutes, paused } = input;
  if (tags === undefined && interval_minutes === undefined && paused === undefined) {
    throw new InvalidInputError("Nothing to update: give at least one of tags, interval_minutes, paused");
  }
  const current = await ownFeed(ctx, id);
  const resumed = paused === false && current.paused;
  const intervalChanged = interval_minutes !== undefined && interval_minutes !== current.intervalMinutes;
  await ctx.db
    .update(feeds)
    .set({
      ...(tags !== undefined && { tags: JSON.stringify(tags) }),
      ...(interval_minutes !== undefined && { intervalMinutes: interval_minutes }),
      ...(paused !== undefined && { paused }),
      ...(resumed && { failures: 0, failingSince: null, lastError: null, nextFetchAt: now }),
      ...(intervalChanged && !resumed && current.failures === 0 && { nextFetchAt: Math.max(now, (current.lastFetchedAt ?? now) + interval_minutes * 60_000) }),
      updatedAt: now,
    })
    .where(and(eq(feeds.id, id), eq(feeds.userId, ctx.userId)));
  if (resumed) await queueFetch(feedServices(ctx), [{ id, userId: ctx.userId }]);
  return feedRecord(ctx, id);
}

/** Its items' notes stay (they are the user's notes now); its tasks forget it. */
export async function deleteFeed({ ctx, input }: { ctx: FeedsCtx; input: { id: number } }): Promise<void> {
  const [deleted, _tasks] = await ctx.db.batch([
    ctx.db.delete(feeds).where(and(eq(feeds.id, input.id), eq(feeds.userId, ctx.userId))).returning({ id: feeds.id }),
    ctx.db.update(importTasks).set({ feedId: null }).where(and(eq(importTasks.feedId, input.id), eq(importTasks.userId, ctx.userId))),
  ]);
  if (deleted.length === 0) throw new NotFoundError(`Feed ${input.id}`);
}

/** POST /api/feeds/{id}/refresh: fetched now (202), whatever its schedule; a paused feed must be resumed first (409). */
export async function refreshFeed({ ctx, input, now = Date.now() }: { ctx: FeedsCtx; input: { id: number }; now?: number }) {
  const services = feedServices(ctx);
  const current = await ownFeed(ctx, input.id);
  if (current.paused) throw new ConflictError("This feed is paused: resume it first (PATCH with paused: false), which fetches it at once");
  await ctx.db.update(feeds).set({ nextFetchAt: now }).where(and(eq(feeds.id, input.id), eq(feeds.userId, ctx.userId)));
  await queueFetch(services, [{ id: input.id, userId: ctx.userId }]);
  return feedRecord(ctx, input.id);
}

/** Feeds of the user by id, for OPML export order. */
export async function feedsOf(ctx: FeedsCtx, ids?: number[]) {
  return ctx.db
    .select()
    .from(feeds)
    .where(ids ? and(eq(feeds.userId, ctx.userId), inArray(feeds.id, ids)) : eq(feeds.userId, ctx.userId))
    .orderBy(feeds.id);
}
