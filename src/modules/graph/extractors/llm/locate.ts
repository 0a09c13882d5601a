import type { TextSpan } from "../../extraction";

/** A folded copy of a text, with where each folded unit came from in the original. */
interface FoldedText {
  text: string;
  starts: number[];
  ends: number[];
}

// Typographic characters models tend to "fix" when they quote, mapped to what they type instead.
const TYPOGRAPHY: Record<string, string> = {
  "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
  "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"', "\u00ab": '"', "\u00bb": '"',
  "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u2026": "...", "\u00a0": " ",
};

/**
 * Case-folds `text` one code point at a time (so each folded unit maps back to its source) and,
 * when `loose`, also collapses whitespace runs and plain-types typographic quotes and dashes.
 */
function fold(text: string, loose: boolean): FoldedText {
  const folded: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let index = 0;
  for (const char of text) {
    const end = index + char.length;
    if (loose && /\s/u.test(char)) {
      if (folded.at(-1) === " ") ends[ends.length - 1] = end;
      else {
        folded.push(" ");
        starts.push(index);
        ends.push(end);
      }
    } else {
      const lower = char.toLowerCase();
      const out = loose ? (TYPOGRAPHY[lower] ?? lower) : lower;
      for (const unit of out.split("")) {
        folded.push(unit);
        starts.push(index);
        ends.push(end);
      }
    }
    index = end;
  }
  return { text: folded.join(""), starts, ends };
}

function foldNeedle(needle: string, loose: boolean): string {
  const folded = fold(needle, loose).text;
  return loose ? folded.trim() : folded;
}

const WORD = /[\p{L}\p{N}\p{M}_]/u;
// Scripts written without spaces between words, where any position is a word boundary.
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

function charBefore(text: string, index: number): string {
  if (index <= 0) return "";
  const code = text.charCodeAt(index - 1);
  const isLow = code >= 0xdc00 && code <= 0xdfff;
  return isLow && index >= 2 ? text.slice(index - 2, index) : text.slice(index - 1, index);
}

function charAt(text: string, index: number): string {
  const point = text.codePointAt(index);
  return point === undefined ? "" : String.fromCodePoint(point);
}

function isBoundary(before: string, after: string): boolean {
  if (!before || !after) return true;
  if (!WORD.test(before) || !WORD.test(after)) return true;
  return UNSPACED.test(before) || UNSPACED.test(after);
}

/** Answers "where in this text is …?" for the model's quotes and names. Spans are relative to the text. */
export class TextLocator {
  #strict?: FoldedText;
  #loose?: FoldedText;

  constructor(readonly text: string) {}

  /** A verbatim quote: exact first, then case-insensitive, then with whitespace and typography normalised. */
  findQuote(quote: string): TextSpan | undefined {
    const trimmed = quote.trim();
    if (!trimmed) return undefined;
    const exact = this.text.indexOf(trimmed);
    if (exact >= 0) return { start: exact, end: exact + trimmed.length };
    const caseless = this.#search(this.#folded(false), foldNeedle(trimmed, false), 0);
    return (caseless ?? this.#search(this.#folded(true), foldNeedle(trimmed, true), 0))?.span;
  }

  /** Whole-word, case-insensitive occurrences of a name inside `within` (default: the whole text). */
  findName(name: string, limit: number, within?: TextSpan): TextSpan[] {
    const needle = foldNeedle(name, true);
    if (!needle) return [];
    const folded = this.#folded(true);
    const found: TextSpan[] = [];
    let from = 0;
    while (found.length < limit) {
      const hit = this.#search(folded, needle, from);
      if (!hit) break;
      const { at, span } = hit;
      from = at + 1;
      const inside = !within || (span.start >= within.start && span.end <= within.end);
      if (inside && this.#isWholeWord(span)) found.push(span);
    }
    return found;
  }

  #isWholeWord(span: TextSpan): boolean {
    const { text } = this;
    return (
      isBoundary(charBefore(text, span.start), charAt(text, span.start)) &&
      isBoundary(charBefore(text, span.end), charAt(text, span.end))
    );
  }

  #folded(loose: boolean): FoldedText {
    if (loose) return (this.#loose ??= fold(this.text, true));
    return (this.#strict ??= fold(this.text, false));
  }

  #search(folded: FoldedText, needle: string, from: number): { at: number; span: TextSpan } | undefined {
    if (!needle) return undefined;
    const at = folded.text.indexOf(needle, from);
    if (at < 0) return undefined;
    return { at, span: { start: folded.starts[at]!, end: folded.ends[at + needle.length - 1]! } };
  }
}
