const MAX_TAGS = 16;

/** What the page says about itself in `<head>` and its markup, read before Readability rewrites the DOM. */
export interface PageMetadata {
  ogTitle?: string;
  documentTitle?: string;
  /** The page's only `<h1>` (none when it has several: then none of them names the page). */
  heading?: string;
  siteName?: string;
  author?: string;
  publishedAt?: string;
  tags: string[];
  canonicalUrl?: string;
}

function collapse(value: string | null | undefined): string | undefined {
  const text = value?.replace(/\s+/g, " ").trim();
  return text ? text : undefined;
}

function metaContent(document: Document, selectors: string[]): string | undefined {
  for (const selector of selectors) {
    const value = collapse(document.querySelector(selector)?.getAttribute("content"));
    if (value) return value;
  }
  return undefined;
}

/**
 * ISO 8601 from a page's date string, when it really is a date: `Date.parse` alone accepts
 * junk like "1" (year 2001), so the value must start with a calendar date.
 */
export function isoFromDateString(value: string | null | undefined): string | undefined {
  const text = value?.trim();
  if (!text || !/^\d{4}-\d{1,2}-\d{1,2}(?:$|[T\s])/.test(text)) return undefined;
  const time = Date.parse(text.replace(/^(\d{4}-\d{1,2}-\d{1,2})\s+(\d)/, "$1T$2"));
  if (!Number.isFinite(time)) return undefined;
  const date = new Date(time);
  const year = date.getUTCFullYear();
  return year >= 1970 && year < 2100 ? date.toISOString() : undefined;
}

/** Keywords and article:tag values: trimmed, `#` dropped, case-insensitively unique, at most 16. */
export function cleanTags(raw: string[]): string[] {
  const seen = new Set<string>();
  const tags: string[] = [];
  for (const value of raw) {
    const tag = value.replace(/\s+/g, " ").trim().replace(/^#+\s*/, "");
    const key = tag.toLowerCase();
    if (!tag || tag.length > 64 || seen.has(key)) continue;
    seen.add(key);
    tags.push(tag);
    if (tags.length === MAX_TAGS) break;
  }
  return tags;
}

function httpUrl(value: string | undefined, base: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function onlyHeading(document: Document): string | undefined {
  const headings = Array.from(document.querySelectorAll("h1"));
  return headings.length === 1 ? collapse(headings[0]!.textContent) : undefined;
}

export function readPageMetadata(document: Document, pageUrl: string | undefined): PageMetadata {
  const keywords = (metaContent(document, ['meta[name="keywords"]', 'meta[name="Keywords"]']) ?? "").split(/[,，;；、]/);
  const articleTags = Array.from(document.querySelectorAll('meta[property="article:tag"], meta[name="article:tag"]')).map(
    (meta) => meta.getAttribute("content") ?? "",
  );
  const author = metaContent(document, ['meta[name="author"]', 'meta[property="article:author"]', 'meta[name="twitter:creator"]']);
  const timeElement = document.querySelector("article time[datetime]") ?? document.querySelector("time[datetime]");

  return {
    ogTitle: metaContent(document, ['meta[property="og:title"]', 'meta[name="og:title"]', 'meta[name="twitter:title"]']),
    documentTitle: collapse(document.querySelector("title")?.textContent),
    heading: onlyHeading(document),
    siteName: metaContent(document, ['meta[property="og:site_name"]', 'meta[name="application-name"]']),
    // article:author is often a profile URL, which is no name.
    author: author && !/^https?:\/\//i.test(author) ? author : undefined,
    publishedAt:
      isoFromDateString(
        metaContent(document, [
          'meta[property="article:published_time"]',
          'meta[name="article:published_time"]',
          'meta[itemprop="datePublished"]',
          'meta[name="pubdate"]',
          'meta[name="publishdate"]',
        ]),
      ) ?? isoFromDateString(timeElement?.getAttribute("datetime")),
    tags: cleanTags([...articleTags, ...keywords]),
    canonicalUrl:
      httpUrl(document.querySelector('link[rel="canonical"]')?.getAttribute("href") ?? undefined, pageUrl) ??
      httpUrl(metaContent(document, ['meta[property="og:url"]']), pageUrl),
  };
}
