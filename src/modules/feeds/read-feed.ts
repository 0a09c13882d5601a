import { ImportError } from "../imports/import-error";
import { spaceMidOf, spaceUrl } from "../imports/platforms/bilibili/space";
import type { Fetcher } from "../imports/platforms/types";
import type { ConditionalAnswer, ConditionalFetcher } from "../imports/safe-fetch/fetch-conditional";
import { readBilibiliSpace } from "./bilibili-space";
import { discoverFeedLinks, looksLikeHtmlPage } from "./discover-feed";
import type { ParsedFeed } from "./feed-entry";
import type { FeedServices } from "./feed-services";
import { NotAFeedError, parseFeedDocument } from "./parse-feed";

/** A feed found at an address a person gave: where it lives, and what it holds now. */
export interface FoundFeed {
  url: string;
  parsed: ParsedFeed;
  /** The validators of the answer the feed was read from (for the next, conditional, fetch). */
  etag: string | null;
  lastModified: string | null;
}

/** Why an address is not something to follow, in words for the person who gave it. */
export class NotFollowableError extends Error {
  override name = "NotFollowableError";
}

/** The page fetcher importers take, over the conditional one (Bilibili's API answers are pages). */
export function pageFetcher(fetch: ConditionalFetcher, timeoutMs?: number): Fetcher {
  return (url, options) => fetch(url, { ...options, timeoutMs });
}

/**
 * What an address names: a Bilibili space, a feed, or a web page whose first alternate link is a
 * feed (followed once). A fetch or a document that is none of these is a NotFollowableError.
 */
export async function findFeed(services: Pick<FeedServices, "fetch" | "bilibili">, address: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<FoundFeed> {
  const mid = spaceMidOf(address);
  if (mid) {
    try {
      const parsed = await readBilibiliSpace(mid, pageFetcher(services.fetch, options.timeoutMs), services.bilibili, options.signal);
      return { url: spaceUrl(mid), parsed, etag: null, lastModified: null };
    } catch (error) {
      throw new NotFollowableError(error instanceof ImportError ? error.message : "Bilibili could not be asked for this space's videos; try again later.");
    }
  }
  const first = await fetchForSubscription(services.fetch, address, options);
  try {
    return { url: first.movedTo ?? address, parsed: parseFeedDocument(first.body, first.url), etag: first.etag, lastModified: first.lastModified };
  } catch (error) {
    if (!(error instanceof NotAFeedError)) throw error;
    if (!looksLikeHtmlPage(first.body, first.contentType)) throw new NotFollowableError(`Nothing at ${address} parses as a feed (RSS, Atom or JSON Feed).`);
  }
  const linked = discoverFeedLinks(first.body, first.url)[0];
  if (!linked) throw new NotFollowableError(`${address} is a web page that names no feed (no <link rel="alternate"> of an RSS, Atom or JSON Feed type), and is not a feed itself.`);
  const second = await fetchForSubscription(services.fetch, linked, options);
  try {
    return { url: second.movedTo ?? linked, parsed: parseFeedDocument(second.body, second.url), etag: second.etag, lastModified: second.lastModified };
  } catch (error) {
    if (!(error instanceof NotAFeedError)) throw error;
    throw new NotFollowableError(`The page names ${linked} as its feed, but nothing there parses as a feed (RSS, Atom or JSON Feed).`);
  }
}

async function fetchForSubscription(fetch: ConditionalFetcher, url: string, options: { timeoutMs?: number; signal?: AbortSignal }): Promise<ConditionalAnswer> {
  let answer: ConditionalAnswer;
  try {
    answer = await fetch(url, { timeoutMs: options.timeoutMs, signal: options.signal, headers: { accept: FEED_ACCEPT } });
  } catch (error) {
    if (error instanceof ImportError) throw new NotFollowableError(error.message);
    throw error;
  }
  if (answer.status < 200 || answer.status > 299) throw new NotFollowableError(`${url} answered HTTP ${answer.status}, not a feed.`);
  return answer;
}

/** What a feed reader asks for: the feed types first, a page (to find its feed) after. */
export const FEED_ACCEPT = "application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, text/html;q=0.7, */*;q=0.5";
