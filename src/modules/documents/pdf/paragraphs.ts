import { firstCharacter, joinsWithoutSpace, lastCharacter } from "../cjk-text";
import type { PdfLine } from "./page-lines";

/** How far apart lines of one paragraph usually are, by text size: the document's own spacing. */
export type LineSpacing = (size: number) => number;

// Sizes within half a point share their spacing.
const sizeBucket = (size: number) => Math.round(size * 2) / 2;

/**
 * The usual distance between consecutive lines of each text size over the document (the median of
 * the distances between consecutive lines of the same size, up to 2.5 times the size: paragraph
 * gaps are rarer than line gaps), so a wider gap is known as a paragraph's end.
 */
export function lineSpacing(pages: readonly (readonly PdfLine[])[]): LineSpacing {
  const gaps = new Map<number, number[]>();
  for (const lines of pages) {
    for (let i = 1; i < lines.length; i++) {
      const [above, below] = [lines[i - 1]!, lines[i]!];
      const gap = above.y - below.y;
      if (sizeBucket(above.size) !== sizeBucket(below.size) || gap < 0.8 * below.size || gap > 2.5 * below.size) continue;
      const bucket = gaps.get(sizeBucket(below.size)) ?? [];
      bucket.push(gap);
      gaps.set(sizeBucket(below.size), bucket);
    }
  }
  const medians = new Map([...gaps].map(([size, values]) => [size, values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!]));
  return (size) => medians.get(sizeBucket(size)) ?? 1.2 * size;
}

const BULLET = /^[•●▪◦‣∙·■□◆◇○]\s*/u;
const SENTENCE_END = /[.!?。！？:：;；"'”’」』)）]$/u;

/**
 * A page's lines as paragraphs: lines join until a wider gap than the document's line spacing, a
 * change of text size (a heading), a line further left or up than the last (a new column), a bullet,
 * an indented first line, or a short line that ends a sentence.
 */
export function pageParagraphs(lines: readonly PdfLine[], spacing: LineSpacing): string[] {
  const paragraphs: string[] = [];
  let text = "";
  let previous: PdfLine | null = null;
  let left = Infinity;
  const right = Math.max(...lines.map((line) => line.right));
  for (const line of lines) {
    if (previous && !breaksBefore(previous, line, spacing, left, right)) {
      text = joinLines(text, line.text);
      left = Math.min(left, line.x);
    } else {
      if (text) paragraphs.push(text);
      text = line.text;
      left = line.x;
    }
    previous = line;
  }
  if (text) paragraphs.push(text);
  return paragraphs.map(asMarkdownParagraph);
}

function breaksBefore(previous: PdfLine, line: PdfLine, spacing: LineSpacing, left: number, right: number): boolean {
  const size = Math.max(previous.size, line.size);
  if (Math.abs(previous.size - line.size) > 0.15 * size) return true;
  const gap = previous.y - line.y;
  if (gap < 0.3 * size) return true;
  if (gap > spacing(line.size) * 1.25 + 0.1 * line.size) return true;
  if (BULLET.test(line.text)) return true;
  // A first line indented past the paragraph's left edge.
  if (line.x > left + 1.2 * line.size && line.x > previous.x + 1.2 * line.size) return true;
  // A line ending a sentence well short of the column's right edge ended its paragraph.
  return previous.right < right - 4 * previous.size && SENTENCE_END.test(previous.text);
}

/**
 * Two lines of one paragraph as one text: a word hyphenated at a Latin line's end is whole again,
 * Chinese (and any ideographic) lines join without a space, other lines with one.
 */
export function joinLines(before: string, after: string): string {
  if (!before) return after;
  if (before.endsWith("\u00ad")) return before.slice(0, -1) + after;
  const hyphenated = /(\p{Script=Latin})[-\u2010]$/u.exec(before);
  if (hyphenated) {
    // "inter-" + "national": one word; "Jean-" + "Paul", "COVID-" + "19": the hyphen stays, with no space.
    return /^\p{Ll}/u.test(after) ? before.slice(0, -1) + after : before + after;
  }
  if (/[\u2013\u2014/]$/.test(before)) return before + after;
  if (joinsWithoutSpace(lastCharacter(before), firstCharacter(after))) return before + after;
  return `${before} ${after}`;
}

/** Text read from a PDF kept as text in Markdown: a leading bullet is a list item, and what would start a heading, a quote or a marker is escaped. */
function asMarkdownParagraph(text: string): string {
  const bulleted = text.replace(BULLET, "- ");
  if (bulleted !== text) return bulleted;
  return /^(?:#{1,6}(?:\s|$)|>|\[p\. |\[picture |!\[|-{3,}$|={3,}$|```)/.test(text) ? `\\${text}` : text;
}
