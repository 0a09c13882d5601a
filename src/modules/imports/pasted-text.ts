import { ImportError } from "./import-error";
import { importedTitle } from "../notes/note-text";
import type { ImportedDocument } from "./platforms/types";

/** Title candidates come from the start of a line only: lines can be megabytes long. */
const LINE_PREFIX_CHARS = 2000;

/** The first non-empty line without its block marker (`#`, `>`, `-`, `1.`), as a title; "" when there is none. */
export function titleFromFirstLine(markdown: string): string {
  for (const line of markdown.split("\n")) {
    const title = importedTitle(line.slice(0, LINE_PREFIX_CHARS).replace(/^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+|\d{1,9}[.)]\s+)*/, ""));
    if (title) return title;
  }
  return "";
}

/** An ATX heading's text (`## Title ##` → `Title`), or undefined for other lines. */
function headingText(line: string): string | undefined {
  const heading = /^ {0,3}#{1,6}[ \t]+/.exec(line);
  if (!heading) return undefined;
  let text = line.slice(heading[0].length, heading[0].length + LINE_PREFIX_CHARS).trimEnd();
  const closing = text.length - text.replace(/#+$/, "").length;
  if (closing > 0 && /[ \t]/.test(text[text.length - closing - 1] ?? "")) text = text.slice(0, -closing).trimEnd();
  return text || undefined;
}

/** The first Markdown heading, else the first non-empty line, as a title; "" when there is none. */
export function titleFromMarkdown(markdown: string): string {
  for (const line of markdown.split("\n")) {
    const heading = headingText(line);
    if (heading) return importedTitle(heading);
  }
  return titleFromFirstLine(markdown);
}

/**
 * True when pasted content is an HTML page or fragment rather than prose: it opens with a
 * doctype, a comment or a structural tag. Prose that merely mentions `<b>` does not qualify.
 */
export function looksLikeHtml(content: string): boolean {
  return /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body|meta|title|div|section|article|main|p|h[1-6]|span|table|ul|ol|img|a)\b[^>]*>/i.test(
    content.slice(0, 100_000).replace(/^\uFEFF/, ""),
  );
}

/** An http(s) URL as given, or undefined: a pasted `url` is user input like the rest. */
export function httpUrlOrUndefined(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url.trim());
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** Plain text or Markdown pasted by the user, kept as the note's body. */
export function documentFromPastedText(content: string, url?: string): ImportedDocument {
  const markdown = content.replace(/^\uFEFF/, "").replace(/\u0000/g, "").replace(/\r\n?/g, "\n").trim();
  if (!markdown) {
    throw new ImportError("The pasted content is empty. Paste the article's text or the page's HTML source.", {
      permanent: true,
    });
  }
  return {
    title: titleFromMarkdown(markdown) || "Untitled",
    markdown,
    tags: [],
    sourceUrl: httpUrlOrUndefined(url),
  };
}
