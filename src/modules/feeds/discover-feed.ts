import { decodeHtmlAttribute } from "../../text/html-entities";
import { absolute } from "./parse-feed";

/** Feed links sit in a page's head: no page needs more than this read to find them. */
const SCANNED_CHARS = 1024 * 1024;

const FEED_TYPES = new Set(["application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/feed+json", "application/x-rss+xml"]);

/**
 * The feeds a web page names with `<link rel="alternate" type="…">` (RSS, Atom, JSON Feed), in
 * page order, as absolute URLs (against `<base href>`, else the page's URL). `application/json`
 * counts only when its address says it is a feed: WordPress names its REST API the same way.
 */
export function discoverFeedLinks(html: string, pageUrl: string): string[] {
  const head = html.slice(0, SCANNED_CHARS);
  const baseHref = /<base\s[^>]*?href\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/i.exec(head)?.[1];
  const base = absolute(baseHref ? decodeHtmlAttribute(unquote(baseHref)) : undefined, pageUrl) ?? pageUrl;
  const found: string[] = [];
  for (const tag of head.matchAll(/<link\b([^>]{0,4000})>/gi)) {
    const attributes = attributesOf(tag[1]!);
    const rel = (attributes.get("rel") ?? "").toLowerCase().split(/\s+/);
    if (!rel.includes("alternate")) continue;
    const type = (attributes.get("type") ?? "").split(";")[0]!.trim().toLowerCase();
    const href = attributes.get("href");
    if (!href) continue;
    const feedJson = type === "application/json" && /feed/i.test(href);
    if (!FEED_TYPES.has(type) && !feedJson) continue;
    const url = absolute(decodeHtmlAttribute(href), base);
    if (url && !found.includes(url)) found.push(url);
  }
  return found;
}

/** True when a document is an HTML page rather than a feed (so its alternate links are worth reading). */
export function looksLikeHtmlPage(text: string, contentType: string): boolean {
  if (/^\s*(?:text\/html|application\/xhtml\+xml)/i.test(contentType)) return true;
  return /^\s*(?:<!--[\s\S]{0,2000}?-->\s*)*(?:<!doctype\s+html|<html[\s>])/i.test(text.slice(0, 4096).replace(/^\uFEFF/, ""));
}

function attributesOf(source: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const match of source.matchAll(/([^\s=/"'<>]+)\s*(?:=\s*("[^"]*"|'[^']*'|[^\s>]+))?/g)) {
    const name = match[1]!.toLowerCase();
    if (!attributes.has(name)) attributes.set(name, unquote(match[2] ?? ""));
  }
  return attributes;
}

function unquote(value: string): string {
  return /^(["']).*\1$/s.test(value) ? value.slice(1, -1) : value;
}
