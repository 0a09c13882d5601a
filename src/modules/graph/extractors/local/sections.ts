import type { TextSpan } from "../../extraction";

export interface Heading {
  level: number;
  /** The whole heading line (or both lines of a setext heading). */
  line: TextSpan;
  /** The heading's words, without the `#` markers or underline. */
  text: TextSpan;
}

/**
 * A stretch of the note whose concepts count as co-occurring: the title, the text under each
 * heading, or (in a note without headings) each paragraph.
 */
export interface Section {
  span: TextSpan;
  /** Index into the headings list when the section is a heading's. */
  heading?: number;
  /** Index of the enclosing heading's section, for sub-headings. */
  parent?: number;
  isTitle: boolean;
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]|$)/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
// A line that cannot be a setext heading's text: list item, quote, table row, or another block.
const NOT_SETEXT_TEXT = /^ {0,3}(?:[-*+>|]|\d+[.)]\s|#|`{3}|~{3})/;

interface Line {
  start: number;
  end: number;
  blank: boolean;
}

/** Reads headings from the masked content, so `#` lines inside code blocks are not headings. */
export function findHeadings(visible: string, contentStart: number): Heading[] {
  const lines = splitLines(visible, contentStart);
  const headings: Heading[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.blank) continue;
    const lineText = visible.slice(line.start, line.end);
    const atx = ATX.exec(lineText);
    if (atx?.[1]) {
      headings.push({ level: atx[1].length, line, text: atxText(visible, line.start + atx[0].length, line.end) });
      continue;
    }
    const next = lines[index + 1];
    const previous = lines[index - 1];
    if (!next || next.blank || (previous && !previous.blank) || NOT_SETEXT_TEXT.test(lineText)) continue;
    const underline = SETEXT_UNDERLINE.exec(visible.slice(next.start, next.end));
    if (!underline?.[1]) continue;
    headings.push({
      level: underline[1][0] === "=" ? 1 : 2,
      line: { start: line.start, end: next.end },
      text: trimSpan(visible, line.start, line.end),
    });
    index++;
  }
  return headings;
}

function atxText(visible: string, start: number, end: number): TextSpan {
  const trimmed = trimSpan(visible, start, end);
  // An optional closing run of `#` is decoration, when set off by a space.
  let closeStart = trimmed.end;
  while (closeStart > trimmed.start && visible[closeStart - 1] === "#") closeStart--;
  if (closeStart < trimmed.end && (closeStart === trimmed.start || /[ \t]/.test(visible[closeStart - 1] ?? ""))) {
    return trimSpan(visible, trimmed.start, closeStart);
  }
  return trimmed;
}

export function splitSections(visible: string, titleEnd: number, contentStart: number, headings: Heading[]): Section[] {
  const sections: Section[] = [{ span: { start: 0, end: titleEnd }, isTitle: true }];
  const lines = splitLines(visible, contentStart);
  if (headings.length === 0) {
    let paragraphStart: number | undefined;
    let paragraphEnd = contentStart;
    for (const line of lines) {
      if (line.blank) {
        if (paragraphStart !== undefined) sections.push({ span: { start: paragraphStart, end: paragraphEnd }, isTitle: false });
        paragraphStart = undefined;
      } else {
        paragraphStart ??= line.start;
        paragraphEnd = line.end;
      }
    }
    if (paragraphStart !== undefined) sections.push({ span: { start: paragraphStart, end: paragraphEnd }, isTitle: false });
    return sections;
  }

  const firstHeading = headings[0]!;
  const preamble = trimSpan(visible, contentStart, firstHeading.line.start);
  if (preamble.end > preamble.start) sections.push({ span: preamble, isTitle: false });
  // Sections of the headings still open at each level, to find a sub-heading's parent.
  const open: { level: number; section: number }[] = [];
  headings.forEach((heading, index) => {
    const nextStart = headings[index + 1]?.line.start ?? visible.length;
    while (open.length > 0 && open[open.length - 1]!.level >= heading.level) open.pop();
    const section: Section = {
      span: trimSpan(visible, heading.line.start, nextStart),
      heading: index,
      isTitle: false,
    };
    const parent = open[open.length - 1];
    if (parent) section.parent = parent.section;
    sections.push(section);
    open.push({ level: heading.level, section: sections.length - 1 });
  });
  return sections;
}

/** The index of the section holding `position`, or -1; sections are sorted and do not overlap. */
export function sectionIndexAt(sections: Section[], position: number): number {
  let low = 0;
  let high = sections.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const span = sections[middle]!.span;
    if (position < span.start) high = middle - 1;
    else if (position >= span.end) low = middle + 1;
    else return middle;
  }
  return -1;
}

function splitLines(text: string, from: number): Line[] {
  const lines: Line[] = [];
  let start = from;
  while (start <= text.length) {
    const newline = text.indexOf("\n", start);
    const end = newline < 0 ? text.length : newline;
    lines.push({ start, end, blank: isBlank(text, start, end) });
    if (newline < 0) break;
    start = newline + 1;
  }
  return lines;
}

function isBlank(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    if (code !== 32 && code !== 9 && code !== 13) return false;
  }
  return true;
}

function trimSpan(text: string, start: number, end: number): TextSpan {
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  return { start, end };
}
