import { markdownPlainText } from "../../text/markdown-text";

const EXCERPT_LENGTH = 200;
// Enough Markdown to yield 200 characters of text without parsing a whole 1 MiB note.
const SOURCE_PREFIX = 4 * 1024;

/** The first 200 characters of a note's Markdown as plain text (entities decoded), whitespace collapsed. */
export function plainTextExcerpt(markdown: string): string {
  return Array.from(markdownPlainText(markdown.slice(0, SOURCE_PREFIX))).slice(0, EXCERPT_LENGTH).join("");
}
