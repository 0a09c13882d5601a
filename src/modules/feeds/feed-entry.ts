/** What every kind of feed (RSS, Atom, JSON Feed, a Bilibili space) is read into: pure data, no I/O. */
export type FeedKind = "rss" | "atom" | "json" | "bilibili";

/** A podcast's (or a video post's) media file: only `audio/*` and `video/mp4` are kept. */
export interface FeedEnclosure {
  url: string;
  type: string;
}

export interface FeedEntry {
  /** The item's id in its feed: RSS `guid`, Atom `id`, JSON Feed `id`; else its link; else a hash of its title and date. */
  id: string;
  title: string | null;
  /** The item's own page (absolute http/https), or null. */
  url: string | null;
  /** ISO 8601 UTC, or null when the feed gives no readable date. */
  publishedAt: string | null;
  author: string | null;
  /** The item's full text as HTML (RSS `content:encoded`, Atom `content`, JSON Feed `content_html`). */
  html: string | null;
  /** The item's full text as plain text (JSON Feed `content_text`). */
  text: string | null;
  /** A summary (RSS `description`, Atom `summary`, JSON Feed `summary`), as HTML. */
  summary: string | null;
  enclosure: FeedEnclosure | null;
  /** The item's own categories or tags. */
  categories: string[];
}

export interface ParsedFeed {
  kind: FeedKind;
  title: string | null;
  /** The site the feed names: RSS `link`, Atom `link rel="alternate"`, JSON Feed `home_page_url`. */
  siteUrl: string | null;
  entries: FeedEntry[];
}
