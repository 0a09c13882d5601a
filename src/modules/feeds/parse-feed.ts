import { createHash } from "node:crypto";
import { type AnyFeed, type AtomFeed, type JsonFeed, type RdfFeed, type RssFeed, parseFeed } from "feedsmith";
import { decodeHtmlEntities } from "../../text/html-entities";
import { importedTitle } from "../notes/note-text";
import type { FeedEnclosure, FeedEntry, ParsedFeed } from "./feed-entry";

/** Beyond this an id is stored as its hash: a guid is a key, not a document. */
const MAX_ID_CHARS = 512;
/** A feed may list more, but no reader needs more than this many of its newest items per fetch. */
export const MAX_ENTRIES = 500;

/** A document that is no feed of a kind this service reads (or not well-formed enough to be one). */
export class NotAFeedError extends Error {
  override name = "NotAFeedError";
}

/**
 * Reads an RSS 0.9x/1.0/2.0, Atom or JSON Feed document. Relative links resolve against the feed's
 * `xml:base`, else `feedUrl`. The XML parser never expands a DOCTYPE's entities (they stay text)
 * and never loads a DTD. Throws NotAFeedError for anything else.
 */
export function parseFeedDocument(text: string, feedUrl: string): ParsedFeed {
  let parsed: AnyFeed;
  try {
    parsed = parseFeed(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new NotAFeedError(error instanceof Error ? error.message : String(error));
  }
  switch (parsed.format) {
    case "rss":
      return readRss(parsed.feed, feedUrl);
    case "rdf":
      return readRdf(parsed.feed, feedUrl);
    case "atom":
      return readAtom(parsed.feed, feedUrl);
    case "json":
      return readJson(parsed.feed, feedUrl);
  }
}

function readRss(feed: RssFeed.Feed<string>, feedUrl: string): ParsedFeed {
  const base = baseOf(feed.xml?.base, feedUrl);
  const entries = (feed.items ?? []).slice(0, MAX_ENTRIES).map((item) => {
    // A permalink guid is a URL only when it is a whole one: `<guid>42</guid>` names no page.
    const url = absolute(item.link, base) ?? (item.guid?.isPermaLink !== false ? absolute(item.guid?.value, "") : null);
    return entry({
      id: item.guid?.value,
      title: plain(item.title),
      url,
      date: item.pubDate ?? item.dc?.dates?.[0] ?? item.dcterms?.created?.[0] ?? item.atom?.published ?? item.atom?.updated,
      author: item.authors?.[0]?.name ?? item.dc?.creators?.[0] ?? item.itunes?.author,
      html: item.content?.encoded,
      summary: item.description,
      enclosure: mediaOf(item.enclosures?.map((enclosure) => ({ url: enclosure.url, type: enclosure.type })), base),
      categories: (item.categories ?? []).map((category) => category.name ?? ""),
    });
  });
  return { kind: "rss", title: plain(feed.title), siteUrl: absolute(feed.link, base) ?? alternateOf(feed.atom?.links, base), entries };
}

function readRdf(feed: RdfFeed.Feed<string>, feedUrl: string): ParsedFeed {
  const base = baseOf(feed.xml?.base, feedUrl);
  const entries = (feed.items ?? []).slice(0, MAX_ENTRIES).map((item) =>
    entry({
      id: undefined,
      title: plain(item.title),
      url: absolute(item.link, base) ?? absolute(item.rdf?.about, base),
      date: item.dc?.dates?.[0] ?? item.dcterms?.created?.[0],
      author: item.dc?.creators?.[0],
      html: item.content?.encoded,
      summary: item.description,
      enclosure: null,
      categories: item.dc?.subjects ?? [],
    }),
  );
  return { kind: "rss", title: plain(feed.title), siteUrl: absolute(feed.link, base), entries };
}

function readAtom(feed: AtomFeed.Feed<string>, feedUrl: string): ParsedFeed {
  const base = baseOf(feed.xml?.base, feedUrl);
  const entries = (feed.entries ?? []).slice(0, MAX_ENTRIES).map((item) => {
    const entryBase = baseOf(item.xml?.base, base);
    const content = item.content?.src ? undefined : item.content;
    const enclosures = (item.links ?? []).filter((link) => link.rel === "enclosure").map((link) => ({ url: link.href ?? "", type: link.type ?? "" }));
    return entry({
      id: item.id,
      title: atomText(item.title),
      url: alternateOf(item.links, entryBase),
      date: item.published ?? item.updated,
      author: item.authors?.[0]?.name ?? feed.authors?.[0]?.name,
      html: content?.value === undefined ? undefined : content.type === "text" ? escapeText(content.value) : content.value,
      summary: item.summary ? (item.summary.type === "html" || item.summary.type === "xhtml" ? item.summary.value : escapeText(item.summary.value)) : undefined,
      enclosure: mediaOf(enclosures, entryBase),
      categories: (item.categories ?? []).map((category) => category.label ?? category.term ?? ""),
    });
  });
  return { kind: "atom", title: atomText(feed.title), siteUrl: alternateOf(feed.links, base), entries };
}

function readJson(feed: JsonFeed.Feed<string>, feedUrl: string): ParsedFeed {
  const entries = (feed.items ?? []).slice(0, MAX_ENTRIES).map((item) =>
    entry({
      id: item.id === undefined || item.id === null ? undefined : String(item.id),
      title: plain(item.title),
      url: absolute(item.url, feedUrl) ?? absolute(item.external_url, feedUrl),
      date: item.date_published ?? item.date_modified,
      author: item.authors?.[0]?.name ?? feed.authors?.[0]?.name,
      html: item.content_html,
      text: item.content_text,
      summary: item.summary === undefined ? undefined : escapeText(item.summary),
      enclosure: mediaOf(item.attachments?.map((attachment) => ({ url: attachment.url, type: attachment.mime_type })), feedUrl),
      categories: item.tags ?? [],
    }),
  );
  return { kind: "json", title: plain(feed.title), siteUrl: absolute(feed.home_page_url, feedUrl), entries };
}

interface RawEntry {
  id: string | undefined;
  title: string | null;
  url: string | null;
  date: string | undefined;
  author: string | undefined;
  html: string | undefined;
  text?: string | undefined;
  summary: string | undefined;
  enclosure: FeedEnclosure | null;
  categories: string[];
}

/** An entry with its id settled: the feed's own, else its link, else a hash of title and date. */
function entry(raw: RawEntry): FeedEntry {
  const publishedAt = isoDate(raw.date);
  const own = raw.id?.trim();
  const key = own || raw.url || `hash:${sha256(`${raw.title ?? ""}\n${raw.date ?? ""}`).slice(0, 32)}`;
  return {
    id: key.length > MAX_ID_CHARS ? `hash:${sha256(key)}` : key,
    title: raw.title,
    url: raw.url,
    publishedAt,
    author: raw.author?.trim() || null,
    html: raw.html?.trim() || null,
    text: raw.text?.trim() || null,
    summary: raw.summary?.trim() || null,
    enclosure: raw.enclosure,
    categories: raw.categories.map((category) => category.trim()).filter(Boolean),
  };
}

/** A date as ISO 8601 UTC (RFC 822 and ISO 8601 forms, with or without a zone name), or null. */
export function isoDate(value: string | undefined): string | null {
  if (!value) return null;
  const time = Date.parse(value.trim());
  return Number.isFinite(time) ? new Date(time).toISOString() : null;
}

/** The first `audio/*` or `video/mp4` file, absolute; podcasts put their episode there. */
function mediaOf(enclosures: { url?: string; type?: string }[] | undefined, base: string): FeedEnclosure | null {
  for (const enclosure of enclosures ?? []) {
    const type = (enclosure.type ?? "").split(";")[0]!.trim().toLowerCase();
    const url = absolute(enclosure.url, base);
    if (url && (type.startsWith("audio/") || type === "video/mp4")) return { url, type };
  }
  return null;
}

/** The `rel="alternate"` link (an HTML one first), else the first link without a rel. */
function alternateOf(links: { href?: string; rel?: string; type?: string }[] | undefined, base: string): string | null {
  const alternates = (links ?? []).filter((link) => !link.rel || link.rel === "alternate");
  const chosen = alternates.find((link) => !link.type || /html/i.test(link.type)) ?? alternates[0];
  return absolute(chosen?.href, base);
}

function baseOf(declared: string | undefined, fallback: string): string {
  return absolute(declared, fallback) ?? fallback;
}

/** An absolute http(s) URL, resolved against `base`; null for anything else. */
export function absolute(value: string | undefined | null, base: string): string | null {
  const trimmed = value?.trim();
  // Longer is no address anyone links to (imports take 2048 characters).
  if (!trimmed || trimmed.length > 2048) return null;
  const url = URL.parse(trimmed, URL.canParse(base) ? base : undefined);
  return url && (url.protocol === "http:" || url.protocol === "https:") ? url.href : null;
}

/** An Atom text construct as plain text (`type="html"` markup removed). */
function atomText(text: AtomFeed.Text | undefined): string | null {
  if (!text?.value) return null;
  return text.type === "html" || text.type === "xhtml" ? plain(stripTags(text.value)) : plain(text.value);
}

/** A title as one line of text: entities the parser left (HTML ones) decoded, tags removed, cut as imported titles are (500 units). */
function plain(value: string | undefined): string | null {
  if (!value) return null;
  return importedTitle(decodeHtmlEntities(stripTags(value.slice(0, 64 * 1024)))) || null;
}

function stripTags(html: string): string {
  return html.replace(/<[^>]{0,2000}>/g, "");
}

function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\n{2,}/g, "</p><p>");
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
