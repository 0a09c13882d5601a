import type { ConditionalFetcher } from "../imports/safe-fetch/fetch-conditional";

/** How subscriptions and polls reach the queue; implemented in jobs/, so modules never import it. */
export interface FeedQueue {
  /** Queues a fetch of each feed now (one job per feed, keyed `feed:<id>`: a fetch already waiting is not doubled). */
  enqueueFetches(feeds: { id: number; userId: number }[]): Promise<void>;
}

export const feedJobKey = (feedId: number) => `feed:${feedId}`;

/** What the feeds module needs from the outside: the guarded fetcher, the queue and Bilibili's settings. */
export interface FeedServices {
  fetch: ConditionalFetcher;
  queue: FeedQueue;
  /** BILIBILI_SESSDATA, and where the API lives (a test's stand-in). */
  bilibili?: { sessdata?: string; apiBase?: string };
}
