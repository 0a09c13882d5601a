import { markdownPlainText } from "../../text/markdown-text";

const EXCERPT_LENGTH = 200;
// Enough Markdown to yield 200 characters of text without parsing a whole 1 MiB note.
const SOURCE_PREFIX = 4 * 1024;
// Usually enough for 200 characters. Lexing is slow (marked's setext-heading rule runs in the
// regex interpreter, ~0.7 µs a character), and the excerpt was half of an archive import's CPU.
const FIRST_TRY = 768;
// A reference definition anywhere changes how a link before it reads (`[text][ref]`).
const LINK_DEFINITION = /^ {0,3}\[[^\]\n]+\]:/m;
// Inline markup that could open before a line break and close after it (emphasis, code, links, HTML, tables).
const INLINE_MARKUP = /[*_`[\]<>!&\\~|]/;

/** The first 200 characters of a note's Markdown as plain text (entities decoded), whitespace collapsed. */
export function plainTextExcerpt(markdown: string): string {
  const source = markdown.slice(0, SOURCE_PREFIX);
  const cut = safeCut(source);
  if (cut > 0) {
    const first = Array.from(markdownPlainText(source.slice(0, cut)));
    if (first.length >= EXCERPT_LENGTH) return first.slice(0, EXCERPT_LENGTH).join("");
  }
  return Array.from(markdownPlainText(source)).slice(0, EXCERPT_LENGTH).join("");
}

/**
 * A line end after FIRST_TRY where the Markdown before it reads the same alone as with what follows,
 * so its text begins exactly like the whole source's: a blank line always (blocks end there), or a
 * line break inside a paragraph whose part before it has no inline markup (nothing can span the cut);
 * -1 when there is none.
 */
function safeCut(source: string): number {
  if (source.length <= FIRST_TRY || LINK_DEFINITION.test(source)) return -1;
  const cut = source.indexOf("\n", FIRST_TRY);
  if (cut < 0) return -1;
  if (source[cut + 1] === "\n") return cut;
  const blockStart = source.lastIndexOf("\n\n", cut) + 1;
  return INLINE_MARKUP.test(source.slice(blockStart, cut)) ? -1 : cut;
}
