import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { batchStep, preparedPerDatabase, runBatch } from "../../db/prepared";
import { feedItems, feeds } from "../../db/schema";
import type { ChangePublisher } from "../events/change";
import { ImportError } from "../imports/import-error";
import type { ImportQueue } from "../imports/import-queue";
import { spaceMidOf } from "../imports/platforms/bilibili/space";
import type { ConditionalFetcher } from "../imports/safe-fetch/fetch-conditional";
import { readBilibiliSpace } from "./bilibili-space";
import type { ParsedFeed } from "./feed-entry";
import type { FeedRow } from "./feed-record";
import { FEED_ACCEPT, findFeed, NotFollowableError, pageFetcher } from "./read-feed";
import { NotAFeedError, parseFeedDocument } from "./parse-feed";
import { newItemRows, queueItemTasks } from "./save-items";
import { nextAfterFailure, nextAfterSuccess, PAUSE_AFTER_FAILING_MS, retryAfterMs } from "./schedule";

export interface PollRun {
  db: Database;
  fetch: ConditionalFetcher;
  bilibili?: { sessdata?: string; apiBase?: string };
  importQueue: ImportQueue;
  changes: ChangePublisher;
  signal?: AbortSignal;
  now?: () => number;
  random?: () => number;
}

/** A job queued a little early (a refresh, the sweep's tick) still runs. */
const EARLY_MS = 5_000;

// The path every poll takes (a 304 takes no other), on statements SQLite prepares once.
const statements = preparedPerDatabase((db) => {
  const mine = and(eq(feeds.id, sql.placeholder("id")), eq(feeds.userId, sql.placeholder("userId")));
  return {
    feed: db.select().from(feeds).where(mine).prepare(),
    waiting: db.select({ id: feedItems.id }).from(feedItems).where(and(eq(feedItems.feedId, sql.placeholder("id")), eq(feedItems.state, "new"))).limit(1).prepare(),
    answered: db
      .update(feeds)
      .set({ lastFetchedAt: sql`${sql.placeholder("now")}`, nextFetchAt: sql`${sql.placeholder("next")}`, lastError: null, failures: 0, failingSince: null, updatedAt: sql`${sql.placeholder("now")}` })
      .where(mine)
      .prepare(),
  };
});

type Outcome =
  | { kind: "unchanged" }
  | { kind: "read"; parsed: ParsedFeed; url: string; etag: string | null; lastModified: string | null }
  | { kind: "failed"; reason: string; retryAfterMs: number | null };

/**
 * The fetch job of one feed (idempotent: a feed not due, paused or gone is left alone). A 304
 * changes nothing but the schedule; a read feed records its new items and queues their imports;
 * a failure backs off (doubling, at most 24 h, never before `Retry-After`) with `last_error`
 * saying why, and a feed failing for 7 days is paused. A permanent redirect (301, 308) moves the
 * feed to its new address.
 */
export async function pollFeed(run: PollRun, payload: { feedId: number; userId: number }): Promise<Outcome["kind"] | "skipped"> {
  const now = (run.now ?? Date.now)();
  const random = run.random ?? Math.random;
  const prepared = statements(run.db);
  const keys = { id: payload.feedId, userId: payload.userId };
  const [[feed], waiting] = await runBatch(run.db, "read", [batchStep(prepared.feed, keys), batchStep(prepared.waiting, keys)]);
  if (!feed || feed.paused || feed.nextFetchAt > now + EARLY_MS) return "skipped";
  const outcome = await readNow(run, feed, now);
  const mine = and(eq(feeds.id, feed.id), eq(feeds.userId, feed.userId));
  if (outcome.kind === "failed") {
    const failures = feed.failures + 1;
    const failingSince = feed.failingSince ?? now;
    const pause = now - failingSince >= PAUSE_AFTER_FAILING_MS;
    await run.db
      .update(feeds)
      .set({
        failures,
        failingSince,
        lastError: pause ? `Paused after failing for 7 days: ${outcome.reason}` : outcome.reason,
        nextFetchAt: nextAfterFailure(now, feed.intervalMinutes, failures, outcome.retryAfterMs, random),
        ...(pause && { paused: true }),
        updatedAt: now,
      })
      .where(mine);
    return "failed";
  }
  if (outcome.kind === "read" && !feed.backfilled && outcome.url !== feed.url && (await followsAlready(run.db, feed.userId, outcome.url))) {
    // Added from OPML as a page whose feed the user follows already: the same subscription twice.
    await run.db.delete(feeds).where(and(mine, eq(feeds.backfilled, false)));
    return "skipped";
  }
  const next = nextAfterSuccess(now, feed.intervalMinutes, random);
  if (outcome.kind === "unchanged") {
    await runBatch(run.db, "write", [batchStep(prepared.answered, { ...keys, now, next })]);
    // Items a run that died left waiting get their tasks now; otherwise a 304 is done.
    if (waiting.length > 0) await queueItemTasks(run, feed, now);
    return outcome.kind;
  }
  const answered = { lastFetchedAt: now, nextFetchAt: next, lastError: null, failures: 0, failingSince: null, updatedAt: now };
  const rows = await newItemRows(run.db, feed, outcome.parsed.entries, now);
  const update = run.db
    .update(feeds)
    .set({
      ...answered,
      title: outcome.parsed.title ?? feed.title,
      siteUrl: outcome.parsed.siteUrl ?? feed.siteUrl,
      kind: outcome.parsed.kind,
      etag: outcome.etag,
      lastModified: outcome.lastModified,
      backfilled: true,
    })
    .where(mine);
  // Moved for good: the new address, unless the user follows it already (then the old one still leads there).
  const move = run.db
    .update(feeds)
    .set({ url: outcome.url })
    .where(and(mine, sql`not exists (select 1 from ${feeds} as other where other.user_id = ${feed.userId} and other.url = ${outcome.url})`));
  const inserts = rows.length > 0 ? [run.db.insert(feedItems).values(rows).onConflictDoNothing()] : [];
  await run.db.batch([update, ...(outcome.url !== feed.url ? [move] : []), ...inserts]);
  await queueItemTasks(run, { ...feed, backfilled: true }, now);
  return outcome.kind;
}

async function followsAlready(db: Database, userId: number, url: string): Promise<boolean> {
  const [other] = await db.select({ id: feeds.id }).from(feeds).where(and(eq(feeds.userId, userId), eq(feeds.url, url)));
  return other !== undefined;
}

async function readNow(run: PollRun, feed: FeedRow, now: number): Promise<Outcome> {
  try {
    const mid = feed.kind === "bilibili" ? spaceMidOf(feed.url) : undefined;
    if (mid) {
      const parsed = await readBilibiliSpace(mid, pageFetcher(run.fetch), run.bilibili, run.signal);
      return { kind: "read", parsed, url: feed.url, etag: null, lastModified: null };
    }
    // The first fetch reads the address as a subscription does (a feed added from OPML may be a page naming one).
    if (!feed.backfilled) {
      const found = await findFeed({ fetch: run.fetch, bilibili: run.bilibili }, feed.url, { signal: run.signal });
      return { kind: "read", parsed: found.parsed, url: found.url, etag: found.etag, lastModified: found.lastModified };
    }
    const answer = await run.fetch(feed.url, { etag: feed.etag, lastModified: feed.lastModified, headers: { accept: FEED_ACCEPT }, signal: run.signal });
    if (answer.status === 304) return { kind: "unchanged" };
    if (answer.status === 429 || answer.status === 503) {
      const wait = retryAfterMs(answer.retryAfter, now);
      const said = answer.status === 429 ? "too many requests" : "unavailable";
      return { kind: "failed", reason: `The feed answered HTTP ${answer.status} (${said})${wait !== null ? `, asking to wait ${Math.ceil(wait / 1000)} s` : ""}`, retryAfterMs: wait };
    }
    if (answer.status < 200 || answer.status > 299) return { kind: "failed", reason: `The feed answered HTTP ${answer.status}`, retryAfterMs: null };
    const parsed = parseFeedDocument(answer.body, answer.url);
    return { kind: "read", parsed, url: answer.movedTo ?? feed.url, etag: answer.etag, lastModified: answer.lastModified };
  } catch (error) {
    if (error instanceof NotAFeedError) return { kind: "failed", reason: `The address no longer serves a feed (${error.message})`, retryAfterMs: null };
    if (error instanceof NotFollowableError || error instanceof ImportError) return { kind: "failed", reason: error.message, retryAfterMs: null };
    throw error;
  }
}
