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
    importedTitle(article?.title ?? "") ||
    importedTitle(metadata.ogTitle ?? "") ||
    importedTitle(metadata.documentTitle ?? "") ||
    titleFromFirstLine(markdown) ||
    "Untitled page";

  return {
    title,
    markdown,
    tags: metadata.tags,
    sourceUrl: metadata.canonicalUrl ?? url,
    author: cleanByline(article?.byline) ?? cleanByline(metadata.author),
    publishedAt: metadata.publishedAt ?? isoFromDateString(article?.publishedTime),
  };
}
