import { markdownPlainText } from "../../text/markdown-text";

const EXCERPT_LENGTH = 200;
// Enough Markdown to yield 200 characters of text without parsing a whole 1 MiB note.
const SOURCE_PREFIX = 4 * 1024;
// Shorter prefixes tried first, each usually enough for 200 characters of text. Lexing is slow and
// grows faster than the text (marked's setext-heading rule runs in the regex interpreter), and the
// excerpt was half of an archive import's CPU.
const TRIES = [320, 1024];
// A reference definition anywhere changes how a link before it reads (`[text][ref]`).
const LINK_DEFINITION = /^ {0,3}\[[^\]\n]+\]:/m;
// Inline markup that could open before a line break and close after it (emphasis, code, links, HTML, tables).
const INLINE_MARKUP = /[*_`[\]<>!&\\~|]/;

/** The first 200 characters of a note's Markdown as plain text (entities decoded), whitespace collapsed. */
export function plainTextExcerpt(markdown: string): string {
  const source = markdown.slice(0, SOURCE_PREFIX);
  if (!LINK_DEFINITION.test(source)) {
    for (const from of TRIES) {
      const cut = safeCut(source, from);
      if (cut < 0) continue;
      const text = markdownPlainText(source.slice(0, cut));
      // Enough text when 200 code points fit in it (a UTF-16 length of 400 surely holds them).
      if (text.length >= 2 * EXCERPT_LENGTH || Array.from(text).length >= EXCERPT_LENGTH) return firstCharacters(text);
    }
  }
  return firstCharacters(markdownPlainText(source));
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

/**
 * A line end at or after `from` where the Markdown before it reads the same alone as with what follows,
 * so its text begins exactly like the whole source's: a blank line always (blocks end there), or a
 * line break inside a paragraph whose part before it has no inline markup (nothing can span the cut);
 * -1 when there is none.
 */
function safeCut(source: string, from: number): number {
  if (source.length <= from) return -1;
  const cut = source.indexOf("\n", from);
  if (cut < 0) return -1;
  if (source[cut + 1] === "\n") return cut;
  const blockStart = source.lastIndexOf("\n\n", cut) + 1;
  return INLINE_MARKUP.test(source.slice(blockStart, cut)) ? -1 : cut;
}
