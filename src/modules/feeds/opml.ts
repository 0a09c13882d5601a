import { type Opml, parseOpml } from "feedsmith";
import { escapeHtml } from "../../text/html-entities";
import { importedTags, importedText } from "../notes/note-text";

/** One feed an OPML document names, with the categories that enclose it as tags. */
export interface OpmlFeed {
  url: string;
  title: string | null;
  tags: string[];
}

/** A document that is not OPML (or that asks for what is never done: external entities, a DTD to load). */
export class NotOpmlError extends Error {
  override name = "NotOpmlError";
}

/** No real subscription list nests deeper; the walk stops there rather than recurse without end. */
const MAX_DEPTH = 32;

/**
 * The feeds of an OPML 1.0/2.0 document, nested outlines included, in document order: an outline
 * with `xmlUrl` is a feed; one without is a category, whose name becomes a tag of every feed inside
 * it (with the feed's own `category` attribute, read as comma-separated `/`-paths). The parser
 * leaves a DOCTYPE's entities unexpanded (they stay text: a billion laughs is a few bytes) and
 * refuses external ones; it never loads a DTD.
 */
export function readOpml(text: string): OpmlFeed[] {
  let document: Opml.Document<string>;
  try {
    document = parseOpml(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new NotOpmlError(error instanceof Error && error.cause instanceof Error ? error.cause.message : "not an OPML document");
  }
  if (!document.body) throw new NotOpmlError("the document has no <body>");
  const feeds: OpmlFeed[] = [];
  const walk = (outlines: Opml.Outline<string>[] | undefined, categories: string[], depth: number) => {
    if (!outlines || depth > MAX_DEPTH) return;
    for (const outline of outlines) {
      const url = outline.xmlUrl?.trim();
      const name = importedText(outline.title ?? outline.text ?? "");
      if (url) {
        const own = (outline.category ?? "").split(",").flatMap((path) => path.split("/"));
        feeds.push({ url, title: name, tags: importedTags([...categories, ...own]) });
      }
      walk(outline.outlines, url || !name ? categories : [...categories, name], depth + 1);
    }
  };
  walk(document.body.outlines, [], 0);
  return feeds;
}

/** A user's feeds as an OPML 2.0 document: one outline each, its tags in `category`. */
export function writeOpml(feeds: { url: string; title: string | null; siteUrl: string | null; tags: string[] }[], now = new Date()): string {
  const attribute = (name: string, value: string | null) => (value ? ` ${name}="${escapeHtml(value)}"` : "");
  const outlines = feeds.map((feed) => {
    const text = feed.title ?? feed.url;
    return `    <outline type="rss"${attribute("text", text)}${attribute("title", text)}${attribute("xmlUrl", feed.url)}${attribute("htmlUrl", feed.siteUrl)}${attribute("category", feed.tags.map((tag) => tag.replace(/[,/]/g, " ")).join(","))}/>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<opml version="2.0">',
    "  <head>",
    "    <title>Rhizome feeds</title>",
    `    <dateCreated>${now.toUTCString()}</dateCreated>`,
    "  </head>",
    "  <body>",
    ...outlines,
    "  </body>",
    "</opml>",
    "",
  ].join("\n");
}
