import { and, asc, eq, lte } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../db/client";
import { feeds } from "../db/schema";
import type { ChangePublisher } from "../modules/events/change";
import { feedJobKey, type FeedQueue } from "../modules/feeds/feed-services";
import type { ImportQueue } from "../modules/imports/import-queue";
import type { ResolveOverrides } from "../modules/imports/resolve-overrides";
import { resolverWith } from "../modules/imports/resolve-overrides";
import { defineTask } from "./define-task";

/** CONTRACT "Feeds and follows": a feed's body is read up to 5 MiB. */
export const FEED_MAX_BYTES = 5 * 1024 * 1024;
/** A failed fetch is the feed's own failure, backed off by its schedule: the queue does not retry it. */
const FEED_FETCH_MAX_ATTEMPTS = 2;
/** Feeds queued per sweep tick; more wait for the next minute. */
const DUE_BATCH = 5_000;
/** Below imports and transcriptions: people wait for those, nobody waits for a poll. */
const FEED_PRIORITY = 10;

export interface FeedJobDependencies {
  db: Database;
  changes: ChangePublisher;
  imports: { allowPrivateNetworks: boolean; resolveOverrides?: ResolveOverrides; bilibiliSessdata?: string };
  /** FEEDS_CONCURRENCY, and the queue (reached late: it is made after the catalogue). */
  feeds?: { concurrency: number; queue: () => FeedQueue; importQueue: () => ImportQueue; bilibiliApiBase?: string };
}

/** The guarded fetcher feeds are read with (the import address rules, 15 s, 5 MiB). */
export async function createFeedFetcher(imports: FeedJobDependencies["imports"]) {
  const { createConditionalFetcher } = await import("../modules/imports/safe-fetch/fetch-conditional");
  return createConditionalFetcher({
    allowPrivateNetworks: imports.allowPrivateNetworks,
    maxBodyBytes: FEED_MAX_BYTES,
    ...(imports.resolveOverrides?.size ? { resolve: resolverWith(imports.resolveOverrides) } : {}),
  });
}

/** The feed jobs: one fetch per due feed, and the minute's sweep that queues the due ones. */
export function feedTasks(deps: FeedJobDependencies) {
  let fetcher: ReturnType<typeof createFeedFetcher> | undefined;
  const loadFetcher = () => (fetcher ??= createFeedFetcher(deps.imports));
  return [
    defineTask({
      name: "feed-fetch",
      payload: z.object({ feedId: z.number().int().positive(), userId: z.number().int().positive() }),
      maxAttempts: FEED_FETCH_MAX_ATTEMPTS,
      handler: async (payload, helpers) => {
        const settings = deps.feeds;
        if (!settings) throw new Error("this worker was started without feed settings");
        const [{ pollFeed }, fetch] = await Promise.all([import("../modules/feeds/poll-feed"), loadFetcher()]);
        await pollFeed(
          {
            db: deps.db,
            fetch,
            bilibili: { sessdata: deps.imports.bilibiliSessdata, apiBase: settings.bilibiliApiBase },
            importQueue: settings.importQueue(),
            changes: deps.changes,
            signal: helpers.signal,
          },
          payload,
        );
      },
    }),
    defineTask({
      name: "feeds-due",
      payload: z.object({}),
      maxAttempts: 1,
      schedule: "* * * * *", // every minute: a feed is fetched within a minute of its time
      handler: async () => {
        if (!deps.feeds) return;
        const due = await deps.db
          .select({ id: feeds.id, userId: feeds.userId })
          .from(feeds)
          .where(and(eq(feeds.paused, false), lte(feeds.nextFetchAt, Date.now())))
          .orderBy(asc(feeds.nextFetchAt))
          .limit(DUE_BATCH);
        await deps.feeds.queue().enqueueFetches(due);
      },
    }),
  ] as const;
}

/**
 * The feeds' view of the queue: one job per feed (keyed, so a fetch waiting is not doubled), in
 * FEEDS_CONCURRENCY named queues (a feed always in the same one), so at most that many feeds are
 * fetched at once across every worker; below the imports in priority.
 */
export function feedQueueWith(
  enqueueMany: (jobs: { payload: { feedId: number; userId: number }; options: { jobKey: string; jobKeyMode: "preserve_run_at"; queueName: string; priority: number } }[]) => Promise<number>,
  concurrency: number,
): FeedQueue {
  return {
    async enqueueFetches(due) {
      if (due.length === 0) return;
      await enqueueMany(
        due.map((feed) => ({
          payload: { feedId: feed.id, userId: feed.userId },
          options: { jobKey: feedJobKey(feed.id), jobKeyMode: "preserve_run_at", queueName: `feeds:${feed.id % concurrency}`, priority: FEED_PRIORITY },
        })),
      );
    },
  };
}
