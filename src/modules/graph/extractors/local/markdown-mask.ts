import type { TextSpan } from "../../extraction";

/** A note's text with non-prose blanked out; blanking keeps every offset valid, so spans need no mapping. */
export interface MaskedText {
  /** Front matter, fenced and indented code, HTML, URLs, link targets and embeds blanked: where names are searched and sentences cut. */
  visible: string;
  /** `visible` with inline code blanked too: where key phrases, hashtags, links and emphasis are read. */
  prose: string;
  /** The inside of each inline code span (between the backticks), as found in `visible`. */
  inlineCode: TextSpan[];
}

type Range = [start: number, end: number];

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const FRONT_MATTER_CLOSE = /^(?:---|\.\.\.)[ \t]*$/;
const BLANK_LINE = /^[ \t]*$/;
// A list item's marker and the spaces after it: its content starts at the end of the match.
const LIST_ITEM = /^ {0,3}(?:[-+*]|\d{1,9}[.)])[ \t]{1,4}(?=\S)/;
const IMAGE = /!\[[^\]\n]{0,500}\]\([^)\n]{0,2000}\)/g;
const EMBED = /!\[\[[^\]\n]{0,500}\]\]/g;
const LINK_TARGET = /\]\([^()\s]{0,2000}(?:\s+(?:"[^"\n]{0,500}"|'[^'\n]{0,500}'))?\)/g;
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]\n]{1,200}\]:[ \t]*\S[^\n]*/gm;
const HTML_TAG = /<\/?[A-Za-z][A-Za-z0-9-]{0,30}(?:\s[^<>\n]{0,500})?\/?>/g;
const URL = /\b(?:https?|ftp|file):\/\/[^\s<>"'`)\]]+|\bwww\.[^\s<>"'`)\]]+/gi;
// Bounded and anchored at the start of a run, so a long word without "@" costs linear time.
const EMAIL = /(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}/g;
const INLINE_CODE = /`([^`\n]{1,300})`/g;

export function maskNoteText(text: string, contentStart: number): MaskedText {
  const withoutBlocks = blankRanges(text, blockRanges(text, contentStart));
  const inlineRanges: Range[] = [];
  for (const pattern of [IMAGE, EMBED, LINK_TARGET, REFERENCE_DEFINITION, HTML_TAG, URL, EMAIL]) {
    for (const match of withoutBlocks.matchAll(pattern)) inlineRanges.push([match.index, match.index + match[0].length]);
  }
  inlineRanges.push(...htmlCommentRanges(withoutBlocks));
  const visible = blankRanges(withoutBlocks, inlineRanges);

  const inlineCode: TextSpan[] = [];
  const codeRanges: Range[] = [];
  for (const match of visible.matchAll(INLINE_CODE)) {
    if (match.index < contentStart) continue;
    inlineCode.push({ start: match.index + 1, end: match.index + match[0].length - 1 });
    codeRanges.push([match.index, match.index + match[0].length]);
  }
  return { visible, prose: blankRanges(visible, codeRanges), inlineCode };
}

/**
 * Front matter, fenced code blocks (an unclosed fence runs to the end, as in CommonMark) and
 * indented code blocks: lines indented four columns past the enclosing list item's content, after
 * a blank line (an indented line cannot interrupt a paragraph), up to the next line indented less.
 */
function blockRanges(text: string, contentStart: number): Range[] {
  const ranges: Range[] = [];
  let lineStart = contentStart;
  let fence: { marker: string; start: number } | undefined;
  let indented: { start: number; end: number; indent: number } | undefined;
  // Where the content of the current list item starts, so its indented paragraphs are not code.
  let listIndent: number | undefined;
  let previousBlank = true;
  let frontMatter = text.startsWith("---", contentStart) && /^---[ \t]*$/.test(lineAt(text, contentStart));
  const frontMatterStart = contentStart;
  let first = true;
  while (lineStart <= text.length) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline < 0 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    const blank = BLANK_LINE.test(line);
    if (frontMatter) {
      if (!first && FRONT_MATTER_CLOSE.test(line)) {
        ranges.push([frontMatterStart, lineEnd]);
        frontMatter = false;
      }
    } else if (fence) {
      const close = FENCE_OPEN.exec(line);
      if (close?.[1] && close[1][0] === fence.marker[0] && close[1].length >= fence.marker.length && line.trim() === close[1]) {
        ranges.push([fence.start, lineEnd]);
        fence = undefined;
      }
    } else {
      const indent = blank ? 0 : indentation(line);
      if (indented && !blank) {
        if (indent >= indented.indent) indented.end = lineEnd;
        else {
          ranges.push([indented.start, indented.end]);
          indented = undefined;
        }
      }
      const codeIndent = (listIndent ?? 0) + 4;
      if (!indented && !blank && previousBlank && indent >= codeIndent) indented = { start: lineStart, end: lineEnd, indent: codeIndent };
      else if (!indented && !blank) {
        const open = FENCE_OPEN.exec(line);
        if (open?.[1]) fence = { marker: open[1], start: lineStart };
        const item = LIST_ITEM.exec(line);
        if (item) listIndent = columns(item[0]);
        else if (listIndent !== undefined && previousBlank && indent < listIndent) listIndent = undefined;
      }
    }
    previousBlank = blank;
    first = false;
    if (newline < 0) break;
    lineStart = newline + 1;
  }
  // Front matter that never closes was not front matter; a fence that never closes swallows the rest.
  if (fence) ranges.push([fence.start, text.length]);
  if (indented) ranges.push([indented.start, indented.end]);
  return ranges;
}

/** Columns of leading whitespace, a tab reaching the next multiple of four. */
function indentation(line: string): number {
  return columns(/^[ \t]*/.exec(line)![0]);
}

function columns(prefix: string): number {
  let width = 0;
  for (const char of prefix) width = char === "\t" ? width + 4 - (width % 4) : width + 1;
  return width;
}

function lineAt(text: string, start: number): string {
  const newline = text.indexOf("\n", start);
  return text.slice(start, newline < 0 ? text.length : newline);
}

function htmlCommentRanges(text: string): Range[] {
  const ranges: Range[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf("<!--", from);
    if (open < 0) return ranges;
    const close = text.indexOf("-->", open + 4);
    const end = close < 0 ? text.length : close + 3;
    ranges.push([open, end]);
    from = end;
  }
}

/** Replaces each UTF-16 unit in the ranges with a space (newlines kept, so lines stay lines). */
function blankRanges(text: string, ranges: Range[]): string {
  if (ranges.length === 0) return text;
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const parts: string[] = [];
  let position = 0;
  for (const [rangeStart, rangeEnd] of sorted) {
    const start = Math.max(rangeStart, position);
    if (rangeEnd <= start) continue;
    parts.push(text.slice(position, start), text.slice(start, rangeEnd).replace(/[^\n]/g, " "));
    position = rangeEnd;
  }
  parts.push(text.slice(position));
  return parts.join("");
}
