import { displayLabel } from "../../concept-key";
import type { TextSpan } from "../../extraction";

export const MAX_DESCRIPTION_LENGTH = 160;
/** A "sentence" longer than this either side of the mention is cut: lists without punctuation, dumps. */
const WINDOW = 300;
const STOP = /[。！？!?；\n]|\.(?=\s|$)/g;
// After optional indentation: a list item, quote, heading, table row, or a blank line.
const BLOCK_START = /[ \t]*(?:[-*+>#|]|\d+[.)][ \t]|\r?\n|\r?$)/y;

/** Sentences of one note's masked text, found once and cut out on demand. */
export interface SentenceReader {
  /** The sentence around `position`, without Markdown, cut to about 160 characters. */
  at(position: number): string;
  /** The first sentence of prose in [from, to) outside the excluded spans (heading lines). */
  firstIn(from: number, to: number, excluded: readonly TextSpan[]): string;
}

export function sentenceReader(visible: string): SentenceReader {
  let stops: number[] | undefined;
  const cache = new Map<number, string>();
  const at = (position: number): string => {
    stops ??= sentenceStops(visible);
    const next = firstAtOrAfter(stops, position);
    const previous = next > 0 ? stops[next - 1]! : -1;
    const stop = stops[next];
    let start = previous + 1;
    let end = stop === undefined ? visible.length : visible[stop] === "\n" ? stop : stop + 1;
    start = Math.max(start, position - WINDOW);
    end = Math.min(end, position + WINDOW);
    const cached = cache.get(start);
    if (cached !== undefined) return cached;
    const sentence = shorten(cleanMarkdown(visible.slice(start, end)));
    cache.set(start, sentence);
    return sentence;
  };
  const firstIn = (from: number, to: number, excluded: readonly TextSpan[]): string => {
    let lineStart = from;
    while (lineStart < to) {
      const newline = visible.indexOf("\n", lineStart);
      const lineEnd = newline < 0 || newline > to ? to : newline;
      const isExcluded = excluded.some((span) => lineStart >= span.start && lineStart < span.end);
      if (!isExcluded) {
        const offset = visible.slice(lineStart, lineEnd).search(/\S/);
        if (offset >= 0) {
          const sentence = at(lineStart + offset);
          if (sentence.length > 0) return sentence;
        }
      }
      lineStart = lineEnd + 1;
    }
    return "";
  };
  return { at, firstIn };
}

/** Positions that end a sentence; a full stop only before a space, so "Node.js" and "3.14" stay whole. */
function sentenceStops(visible: string): number[] {
  const stops: number[] = [];
  for (const match of visible.matchAll(STOP)) {
    if (match[0] === "\n" && isSoftLineBreak(visible, match.index)) continue;
    stops.push(match.index);
  }
  return stops;
}

/** A newline between two plain lines of a paragraph is a wrapped line, not the end of a sentence. */
function isSoftLineBreak(text: string, newline: number): boolean {
  const previousLineStart = text.lastIndexOf("\n", newline - 1) + 1;
  return !startsBlock(text, previousLineStart) && !startsBlock(text, newline + 1);
}

function startsBlock(text: string, lineStart: number): boolean {
  BLOCK_START.lastIndex = lineStart;
  return BLOCK_START.test(text);
}

function firstAtOrAfter(sorted: number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

function cleanMarkdown(sentence: string): string {
  return displayLabel(
    sentence
      .replace(/\[\[([^\]|]*)\|([^\]]*)\]\]/g, "$2")
      .replace(/^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)/, "")
      .replace(/\[\[|\]\]|\*\*|__|==|[`*[\]]/g, ""),
  );
}

function shorten(sentence: string): string {
  if (sentence.length <= MAX_DESCRIPTION_LENGTH) return sentence;
  let cut = sentence.slice(0, MAX_DESCRIPTION_LENGTH - 1);
  // Never leave half of a surrogate pair (an emoji) at the cut.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  const space = cut.lastIndexOf(" ");
  return `${space > MAX_DESCRIPTION_LENGTH / 2 ? cut.slice(0, space) : cut}…`;
}
