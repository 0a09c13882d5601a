import { Readability } from "@mozilla/readability";
import { ImportError, PASTE_INSTEAD } from "../../import-error";
import { assertReadableNesting, htmlToMarkdown, parseHtmlDocument } from "../../html-to-markdown";
import { importedTitle } from "../../../notes/note-text";
import { httpUrlOrUndefined, titleFromFirstLine } from "../../pasted-text";
import type { ImportedDocument } from "../types";
import { mainContent } from "./main-text";
import { isoFromDateString, readPageMetadata } from "./page-metadata";

/** Below this much text, what Readability found may be boilerplate: the page's main text is read instead. */
const MIN_ARTICLE_CHARS = 100;

/** The URL relative links resolve against: the page's `<base href>` if any, else the page URL. */
function baseUrl(document: Document, pageUrl: string | undefined): string | undefined {
  if (!pageUrl) return undefined;
  const baseHref = document.querySelector("base[href]")?.getAttribute("href");
  try {
    return new URL(baseHref ?? pageUrl, pageUrl).href;
  } catch {
    return pageUrl;
  }
}

/** "By Jane Doe" / "作者：张三" → the name. */
function cleanByline(byline: string | null | undefined): string | undefined {
  const name = byline
    ?.replace(/\s+/g, " ")
    .trim()
    .replace(/^(?:by|written by|author|作者|文)\s*[:：|]?\s*/i, "")
    .trim();
  return name ? importedTitle(name) : undefined;
}

/** What sites put between an article's title and their own name in `<title>`. */
const TITLE_SEPARATOR = /^\s*[|\-–—·•:»«/]+\s*/;

/**
 * The article's own title. `<title>` (which Readability starts from) often carries the site's name
 * (`Prospect Theory Explained | Econ Blog`); when the page's `og:title` or its one `<h1>` is that
 * title without it, that is the title. Else the site's `og:site_name` is cut off its end or start.
 */
export function articleTitle(title: string, metadata: { ogTitle?: string; heading?: string; siteName?: string }): string {
  const text = title.replace(/\s+/g, " ").trim();
  for (const own of [metadata.ogTitle, metadata.heading]) {
    if (!own || own.length < 2) continue;
    if (text === own) return own;
    if (text.startsWith(own) && TITLE_SEPARATOR.test(text.slice(own.length))) return own;
    const before = text.slice(0, text.length - own.length);
    if (text.endsWith(own) && /\S\s*[|\-–—·•:»«/]+\s*$/.test(before)) return own;
  }
  const site = metadata.siteName;
  if (site && text !== site) {
    if (text.endsWith(site)) {
      const rest = text.slice(0, -site.length).replace(/\s*[|\-–—·•:»«/]+\s*$/, "");
      if (rest && rest !== text.slice(0, -site.length)) return rest;
    }
    if (text.startsWith(site)) {
      const rest = text.slice(site.length).replace(TITLE_SEPARATOR, "");
      if (rest && rest !== text.slice(site.length)) return rest;
    }
  }
  return text;
}

/** A byline ("By Jane Doe", "Written by Jane Doe · 3 March 2025", "作者：张三") that names the author. */
const BYLINE = /^(?:by|written by|posted by|author|words by|作者|文)(?=[\s:：|])\s*[:：|]?\s*/i;

/**
 * The body without its byline: the author is in the note's `source.author`, so a short line near
 * the top that only says who wrote it goes. Lines that say more (or name someone else) stay.
 */
export function withoutByline(markdown: string, author: string): string {
  const blocks = markdown.split(/\n{2,}/);
  const name = author.toLowerCase();
  for (let index = 0; index < Math.min(blocks.length, 5); index++) {
    const line = blocks[index]!.replace(/[*_`]/g, "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/\s+/g, " ").trim();
    if (line.length > 160 || !BYLINE.test(line)) continue;
    if (!line.replace(BYLINE, "").toLowerCase().startsWith(name)) continue;
    blocks.splice(index, 1);
    return blocks.join("\n\n");
  }
  return markdown;
}

/**
 * A web page's main article as a document, found by Readability. `pageUrl` (after redirects)
 * resolves relative links and images. Throws a permanent ImportError when there is no article.
 */
export function parseWebPage(html: string, pageUrl?: string): ImportedDocument {
  const url = httpUrlOrUndefined(pageUrl);
  const document = parseHtmlDocument(html);
  assertReadableNesting(document.documentElement);
  const metadata = readPageMetadata(document, url);

  const base = baseUrl(document, url);
  if (base) {
    // linkedom has no real documentURI/baseURI; Readability reads both to absolutize links.
    Object.defineProperty(document, "documentURI", { value: url, configurable: true });
    Object.defineProperty(document, "baseURI", { value: base, configurable: true });
  }

  let article: ReturnType<Readability["parse"]> = null;
  try {
    article = new Readability(document, { charThreshold: 250, keepClasses: true }).parse();
  } catch (error) {
    throw new ImportError(`Could not read an article from this page. ${PASTE_INSTEAD}`, { permanent: true, cause: error });
  }
  const text = (article?.textContent ?? "").replace(/\s+/g, " ").trim();
  let markdown = article?.content && text.length >= MIN_ARTICLE_CHARS ? htmlToMarkdown(article.content) : "";
  if (!markdown) {
    // Readability changed the document it read; the short page is read again from the source.
    const content = mainContent(parseHtmlDocument(html), base);
    markdown = content ? htmlToMarkdown(content) : "";
  }
  if (!markdown) {
    throw new ImportError(`No article text found on this page. If the text is there in your browser: ${PASTE_INSTEAD}`, {
      permanent: true,
    });
  }

  const title =
    importedTitle(articleTitle(article?.title ?? "", metadata)) ||
    importedTitle(metadata.ogTitle ?? "") ||
    importedTitle(metadata.documentTitle ?? "") ||
    titleFromFirstLine(markdown) ||
    "Untitled page";

  const author = cleanByline(article?.byline) ?? cleanByline(metadata.author);
  return {
    title,
    markdown: author ? withoutByline(markdown, author) : markdown,
    tags: metadata.tags,
    sourceUrl: metadata.canonicalUrl ?? url,
    author,
    publishedAt: metadata.publishedAt ?? isoFromDateString(article?.publishedTime),
  };
}
