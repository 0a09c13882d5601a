import { markdownPlainText } from "../../text/markdown-text";

const EXCERPT_LENGTH = 200;
// Enough Markdown to yield 200 characters of text without parsing a whole 1 MiB note.
const SOURCE_PREFIX = 4 * 1024;

/** The first 200 characters of a note's Markdown as plain text (entities decoded), whitespace collapsed. */
export function plainTextExcerpt(markdown: string): string {
  return firstCharacters(markdownPlainText(markdown.slice(0, SOURCE_PREFIX)));
}

/**
 * The same excerpt from the plain text of the whole note when it is already at hand (the search
 * entry needs it): for a note within the prefix it is the very text the excerpt is cut from.
 */
export function excerptOfPlainText(markdown: string, plainText: string): string {
  return markdown.length <= SOURCE_PREFIX ? firstCharacters(plainText) : plainTextExcerpt(markdown);
}

function firstCharacters(text: string): string {
  // 200 code points lie within the first 400 UTF-16 units.
  return Array.from(text.slice(0, 2 * EXCERPT_LENGTH)).slice(0, EXCERPT_LENGTH).join("");
}
