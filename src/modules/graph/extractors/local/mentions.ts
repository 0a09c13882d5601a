import { displayLabel } from "../../concept-key";
import type { TextSpan } from "../../extraction";

/** More mentions than this per concept add nothing for a reader. */
export const MAX_MENTIONS = 20;
/** Enough occurrences to place a concept in every section that matters without scanning a huge note forever. */
export const MAX_OCCURRENCES = 1000;

const LATIN_EDGE = new RegExp(String.raw`[[\p{L}\p{N}]--[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]]`, "v");

/** Case-insensitive, whole-word (for Latin edges) occurrences of a name in the masked text. */
export function findNameSpans(visible: string, name: string, from: number, limit: number): TextSpan[] {
  const pattern = namePattern(name);
  if (!pattern) return [];
  pattern.lastIndex = from;
  const spans: TextSpan[] = [];
  for (let match = pattern.exec(visible); match && spans.length < limit; match = pattern.exec(visible)) {
    spans.push({ start: match.index, end: match.index + match[0].length });
  }
  return spans;
}

// The same names (a user's tags, recurring titles) are looked for note after note: compiling their
// pattern each time was the extraction pass's largest single cost.
const patterns = new Map<string, RegExp | null>();
const MAX_PATTERNS = 10_000;

function namePattern(name: string): RegExp | null {
  let pattern = patterns.get(name);
  if (pattern !== undefined) return pattern;
  const words = displayLabel(name).split(" ").filter((word) => word.length > 0);
  if (words.length === 0) pattern = null;
  else {
    const first = words[0]!;
    const last = words[words.length - 1]!;
    const before = LATIN_EDGE.test(first[0] ?? "") ? String.raw`(?<![\p{L}\p{N}_])` : "";
    const after = LATIN_EDGE.test(last[last.length - 1] ?? "") ? String.raw`(?![\p{L}\p{N}_])` : "";
    pattern = new RegExp(before + words.map(escapeRegExp).join(String.raw`\s+`) + after, "giu");
  }
  if (patterns.size >= MAX_PATTERNS) patterns.clear();
  patterns.set(name, pattern);
  return pattern;
}

/** Sorted by position, duplicates and spans nested in an earlier one removed. */
export function mergeSpans(spans: TextSpan[]): TextSpan[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: TextSpan[] = [];
  for (const span of sorted) {
    const previous = merged[merged.length - 1];
    if (previous && span.start >= previous.start && span.end <= previous.end) continue;
    merged.push(span);
  }
  return merged;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** The first of `spans` (sorted by start) starting at or after `position`, or undefined: a binary search. */
export function firstSpanFrom(spans: readonly TextSpan[], position: number): TextSpan | undefined {
  let low = 0;
  let high = spans.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (spans[middle]!.start < position) low = middle + 1;
    else high = middle;
  }
  return spans[low];
}
