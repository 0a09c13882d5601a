import { diffLines } from "diff";

/**
 * How to turn one text into another: splices `[at, removed, inserted]` at UTF-16 offsets of the
 * text they apply to, in ascending order and not overlapping. A version is stored as the delta that
 * turns the text which replaced it back into it, so a version costs what the edit changed.
 */
export type TextDelta = [at: number, removed: number, inserted: string][];

/** Past this many changed characters between the common start and end, the middle is diffed by lines rather than kept as one splice. */
const ONE_SPLICE_LIMIT = 4096;
/** Bounds the line diff of a huge rewrite; past it the middle is one splice (correct, just larger). */
const MAX_EDIT_LENGTH = 2000;

/** The delta that turns `from` into `to`. */
export function textDelta(from: string, to: string): TextDelta {
  if (from === to) return [];
  let start = 0;
  const shorter = Math.min(from.length, to.length);
  while (start < shorter && from.charCodeAt(start) === to.charCodeAt(start)) start++;
  let end = 0;
  while (end < shorter - start && from.charCodeAt(from.length - 1 - end) === to.charCodeAt(to.length - 1 - end)) end++;
  // Never cut a surrogate pair: a lone half would not survive being stored as UTF-8.
  if (start > 0 && isHighSurrogate(from.charCodeAt(start - 1))) start--;
  if (end > 0 && isLowSurrogate(from.charCodeAt(from.length - end))) end--;
  const fromMiddle = from.slice(start, from.length - end);
  const toMiddle = to.slice(start, to.length - end);
  if (fromMiddle.length + toMiddle.length <= ONE_SPLICE_LIMIT) return [[start, fromMiddle.length, toMiddle]];
  const changes = diffLines(fromMiddle, toMiddle, { maxEditLength: MAX_EDIT_LENGTH });
  if (!changes) return [[start, fromMiddle.length, toMiddle]];
  const delta: TextDelta = [];
  let at = start;
  for (const change of changes) {
    if (change.added) {
      const last = delta.at(-1);
      // A replacement is one splice: the removal just before it at the same place takes the insertion.
      if (last && last[0] + last[1] === at && last[2] === "") last[2] = change.value;
      else delta.push([at, 0, change.value]);
    } else if (change.removed) {
      delta.push([at, change.value.length, ""]);
      at += change.value.length;
    } else {
      at += change.value.length;
    }
  }
  return delta;
}

/** `text` with the delta applied. */
export function applyDelta(text: string, delta: TextDelta): string {
  return applyDeltas(text, [delta]);
}

/**
 * `text` with each delta applied in turn, without building the text in between: the text is kept
 * as a list of pieces, each splice replaces the pieces it touches in place (a delta's splices last
 * first, so the earlier ones' offsets hold), and the result is joined once. Reading a version many
 * edits back costs the size of those edits plus one copy of the text.
 */
export function applyDeltas(text: string, deltas: TextDelta[]): string {
  const pieces = [text];
  for (const delta of deltas) {
    for (let index = delta.length - 1; index >= 0; index--) {
      const [at, removed, inserted] = delta[index]!;
      // The piece holding `at`, and how far into it.
      let first = 0;
      let offset = at;
      while (first < pieces.length - 1 && offset >= pieces[first]!.length) offset -= pieces[first++]!.length;
      // The piece holding the end of the removal, and how far into it.
      let last = first;
      let end = offset + removed;
      while (last < pieces.length - 1 && end > pieces[last]!.length) end -= pieces[last++]!.length;
      const before = pieces[first]!.slice(0, offset);
      const after = pieces[last]!.slice(end);
      const replacement = [before, inserted, after].filter((part) => part.length > 0);
      pieces.splice(first, last - first + 1, ...replacement);
      if (pieces.length === 0) pieces.push("");
    }
  }
  return pieces.join("");
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
