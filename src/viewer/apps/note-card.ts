// A note as the page shows it: its title, tags and source, and its Markdown rendered by the page's
// own renderer (markdown.ts: text goes in as text, raw HTML shows as text, no picture from elsewhere).
import { make } from "../client/dom";
import { renderMarkdown } from "../client/markdown";
import { sourceLine } from "../client/note-source";
import type { Note } from "../client/types";

export function noteCard(note: Note): HTMLElement {
  const article = make("article", undefined, "note");
  article.dataset.note = String(note.id);
  const meta = make("p", note.tags.length ? `Tags: ${note.tags.join(", ")}` : "", "tags");
  if (note.source) meta.append(sourceLine(note.source));
  const body = make("div", undefined, "note-body");
  body.append(renderMarkdown(note.content));
  withoutStoredFiles(body);
  article.append(make("h1", note.title), meta, body);
  return article;
}

/**
 * Pictures and files stored in Rhizome are fetched with the user's token by the page; an app has no
 * token and may fetch nothing, so a picture is named and a file link is its text.
 */
function withoutStoredFiles(body: HTMLElement): void {
  for (const img of Array.from(body.querySelectorAll<HTMLImageElement>("img[data-file]"))) {
    img.replaceWith(document.createTextNode(`[image: ${img.alt || "stored in Rhizome"}]`));
  }
  for (const link of Array.from(body.querySelectorAll<HTMLAnchorElement>("a[data-file]"))) {
    link.replaceWith(...Array.from(link.childNodes));
  }
}
