/**
 * Concept identity for entity resolution, and the label a concept is shown with.
 *
 * `conceptKey` folds away everything a reader would not count as a different name: compatibility
 * forms (full-width letters, ligatures), case, whitespace runs, invisible characters, and
 * punctuation or symbols at either end ("#machine learning", "«Machine Learning»", "机器学习。").
 * Case folding is locale-independent: ß → ss, final ς → σ, and "İ" folds to "i" (Turkish dotless
 * "ı" stays distinct, as in Unicode's default folding). Hyphens and inner punctuation are kept, so
 * "machine-learning" and "machine learning" are different keys. A trailing "+"/"#" glued to a Latin
 * word is part of the name ("C++", "C#", "F#") unless the name also starts with "#" ("#rust#"). Names made only of punctuation, symbols or emoji get "".
 */

// Characters that render as nothing (or reorder text) but would split identities or spoof a label.
const INVISIBLE = /[\u00AD\u061C\u180E\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
const CONTROL = /\p{Cc}/gu;
const WHITESPACE_RUN = /\s+/g;
const PRINTABLE_ASCII = /^[\x20-\x7E]*$/;
const SPACE_RUN = / {2,}/g;
// What may be trimmed from either end of a key: punctuation, symbols (incl. emoji), separators, and
// the joiners/variation selectors that ride along with emoji.
const EDGE_JUNK = /^[\p{P}\p{S}\p{Z}\s\u200C\u200D\uFE0E\uFE0F\u20E3]$/u;
const LATIN_WORD_CHAR = /^[\p{L}\p{N}]$/u;
const CJK_CHAR = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]$/u;

/**
 * Text as shown: invisible characters removed, control characters and whitespace runs as one space,
 * trimmed, composed (NFC); case and compatibility forms kept. NFKC belongs to keys only: a Chinese
 * description keeps its full-width "（…）：", a label its "ＡＩ" when so written.
 */
export function displayLabel(name: string): string {
  // Printable ASCII is already normalised with nothing invisible: the common case skips four passes.
  if (PRINTABLE_ASCII.test(name)) return name.replace(SPACE_RUN, " ").trim();
  // Strip invisibles before composing so characters they separated can still compose.
  return name.replace(INVISIBLE, "").replace(CONTROL, " ").normalize("NFC").replace(WHITESPACE_RUN, " ").trim();
}

/** displayLabel with compatibility forms folded too (NFKC): what keys and searches compare. */
function foldedLabel(name: string): string {
  if (PRINTABLE_ASCII.test(name)) return name.replace(SPACE_RUN, " ").trim();
  return name.replace(INVISIBLE, "").replace(CONTROL, " ").normalize("NFKC").replace(WHITESPACE_RUN, " ").trim();
}

/** The identity concepts are merged on; "" means the name has nothing to identify (drop it). */
export function conceptKey(name: string): string {
  return trimEdgeJunk(foldCase(foldedLabel(name)));
}

/** What a search for concepts compares: NFKC and case-folded, edges kept ("c+" still finds "C++"). */
export function searchFold(query: string): string {
  return foldCase(foldedLabel(query));
}

function foldCase(label: string): string {
  const lower = label.toLowerCase();
  // ASCII needs nothing beyond toLowerCase; skip the extra passes on the common path.
  if (!/[^\x00-\x7F]/.test(lower)) return lower;
  return lower.replace(/ß/g, "ss").replace(/ς/g, "σ").replace(/i\u0307/g, "i").normalize("NFKC");
}

function trimEdgeJunk(value: string): string {
  let start = 0;
  while (start < value.length) {
    const width = edgeJunkWidth(value, start, 1);
    if (width === 0) break;
    start += width;
  }
  let end = value.length;
  while (end > start) {
    const width = edgeJunkWidth(value, end, -1);
    if (width === 0) break;
    end -= width;
  }
  if (end === start) return "";
  let suffixEnd = end;
  while (value[suffixEnd] === "+" || value[suffixEnd] === "#") suffixEnd++;
  // "C#" keeps its "#"; "#rust#" and "#机器学习#" are hashtag wrappers and lose both.
  if (suffixEnd > end && !value.slice(0, start).includes("#") && isLatinWordChar(codePointBefore(value, end))) end = suffixEnd;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/** UTF-16 length of the junk character at `index` (forwards) or before it (backwards), or 0. */
function edgeJunkWidth(value: string, index: number, direction: 1 | -1): number {
  const code = value.charCodeAt(direction === 1 ? index : index - 1);
  if (code < 0x80) return isAsciiJunk(code) ? 1 : 0;
  const char = direction === 1 ? codePointAt(value, index) : codePointBefore(value, index);
  return EDGE_JUNK.test(char) ? char.length : 0;
}

/** ASCII: everything but letters and digits is punctuation, a symbol or a space. */
function isAsciiJunk(code: number): boolean {
  return code >= 0x20 && !((code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122));
}

function isLatinWordChar(char: string): boolean {
  return LATIN_WORD_CHAR.test(char) && !CJK_CHAR.test(char);
}

function codePointAt(value: string, index: number): string {
  return String.fromCodePoint(value.codePointAt(index) ?? 0);
}

function codePointBefore(value: string, end: number): string {
  const low = value.charCodeAt(end - 1);
  const high = value.charCodeAt(end - 2);
  const isPair = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
  return value.slice(isPair ? end - 2 : end - 1, end);
}
