import { createHash } from "node:crypto";
import { choosePlatform } from "../imports/choose-platform";
import { htmlToMarkdown, parseHtmlDocument } from "../imports/html-to-markdown";
import type { ImportedDocument } from "../imports/platforms/types";
import type { Platform } from "../imports/schemas";
import { titleFromMarkdown } from "../imports/pasted-text";
import { importedTitle } from "../notes/note-text";
import type { FeedEntry } from "./feed-entry";

/** An item carrying at least this much text is imported from it, without fetching its page. */
export const FULL_TEXT_MIN_CHARS = 500;

/** The line a podcast's note carries when no speech-to-text server is set up. */
export const NO_TRANSCRIPT_LINE = "## Transcript\n\n_No transcript: speech-to-text is not set up on this server (STT_BASE_URL)._";

/** What an item's import task is made of. */
export interface ItemTask {
  platform: Platform;
  url: string | null;
  /** The note's document when the item itself holds it (full text, a podcast episode, an item with no link). */
  document: ImportedDocument | null;
}

/**
 * How a feed item is imported: a WeChat, Xiaohongshu, Bilibili or Douyin link through that
 * platform's importer (its own transcripts included); a podcast episode (`audio/*`, `video/mp4`)
 * downloaded and transcribed, its notes the item's text; an item carrying its full text (at least
 * 500 characters) from that text, its link the note's URL, no page fetched; another link by
 * fetching the page; an item without a link from whatever text it has. Null: nothing to import.
 */
export function itemTask(entry: FeedEntry, userId: number): ItemTask | null {
  const platform = choosePlatform(undefined, entry.url ?? undefined);
  if (entry.url && platform !== "web") return { platform, url: entry.url, document: null };
  const base = entry.url ?? undefined;
  if (entry.enclosure) {
    const markdown = entryMarkdown(entry.html ?? entry.summary, base) || (entry.text ?? "");
    return {
      platform: "web",
      url: entry.url ?? entry.enclosure.url,
      document: {
        ...documentOf(entry, markdown),
        sourceUrl: entry.url ?? entry.enclosure.url,
        // Named by a feed the user chose, so kept for that user alone (as pasted media is).
        media: { key: `pasted:${userId}:feed:${sha256(entry.enclosure.url)}`, source: { url: entry.enclosure.url }, withoutTranscript: NO_TRANSCRIPT_LINE },
      },
    };
  }
  const fullText = fullTextOf(entry, base);
  if (fullText) return { platform: "web", url: entry.url, document: documentOf(entry, fullText) };
  if (entry.url) return { platform: "web", url: entry.url, document: null };
  const anything = entryMarkdown(entry.html ?? entry.summary, base) || (entry.text ?? "");
  if (!anything.trim()) return null;
  return { platform: "web", url: null, document: documentOf(entry, anything) };
}

/** The item's full text as Markdown, when it carries at least FULL_TEXT_MIN_CHARS characters of text. */
function fullTextOf(entry: FeedEntry, base: string | undefined): string | null {
  if (entry.html) {
    const document = parseHtmlDocument(entry.html);
    if (visibleText(document.body?.textContent ?? "").length >= FULL_TEXT_MIN_CHARS) return entryMarkdown(entry.html, base);
  }
  if (entry.text && visibleText(entry.text).length >= FULL_TEXT_MIN_CHARS) return entry.text.replace(/\r\n?/g, "\n").trim();
  return null;
}

function documentOf(entry: FeedEntry, markdown: string): ImportedDocument {
  return {
    title: importedTitle(entry.title ?? "") || titleFromMarkdown(markdown) || "Untitled feed item",
    markdown,
    tags: entry.categories,
    ...(entry.url && { sourceUrl: entry.url }),
    ...(entry.author && { author: entry.author }),
    ...(entry.publishedAt && { publishedAt: entry.publishedAt }),
  };
}

/** An item's HTML as Markdown, its relative links and pictures resolved against the item's own address. */
export function entryMarkdown(html: string | null, base: string | undefined): string {
  if (!html) return "";
  const document = parseHtmlDocument(html);
  if (base) {
    for (const [selector, attribute] of [["a[href]", "href"], ["img[src]", "src"], ["img[data-src]", "data-src"]] as const) {
      for (const element of Array.from(document.querySelectorAll(selector))) {
        const resolved = URL.parse(element.getAttribute(attribute) ?? "", base);
        if (resolved) element.setAttribute(attribute, resolved.href);
      }
    }
  }
  return document.body ? htmlToMarkdown(document.body) : "";
}

const visibleText = (text: string) => text.replace(/\s+/g, " ").trim();

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
