import { isCjk } from "./tokens";

/**
 * Phrases through word pairs. A phrase of two words found in most notes ("memory attention") made
 * every statement walk both words' whole position lists (170 ms at 100,000 notes). Each pair of
 * adjacent words of a column is therefore indexed too, in that column's `_pairs` twin, so the
 * phrase reads one short posting list, and a longer phrase is the phrase of its pairs (the pairs of
 * a run of words sit at consecutive positions, as its words do).
 *
 * Only pairs of two non-CJK words are kept: a CJK run is indexed as overlapping bigrams already,
 * which are its pairs of characters, and its phrases are fast without more. Where a run of words
 * is interrupted (by CJK text), a GAP token stands between its pairs, so pairs of two runs are
 * never adjacent: "a b 中 b d" must not match the phrase "a b d".
 *
 * A pair token is a 64-bit hash of its owner and both words, written as six CJK ideographs of
 * 10–11 bits each: shorter than the 9 characters where the prefix indexes start (so pairs add no
 * prefix entries, which would otherwise hold every pair of a user), never equal to a word (words
 * start with their owner's hex digits, scope tokens with `u` or `t`), one token for `unicode61` (a
 * run of ideographs is one token to it) and, like every word, per user. A false match needs two of
 * one user's pairs among 2^64 values: not a practical concern.
 */

/** U+4E00 starts the CJK Unified Ideographs: 2,048 letters from here, none folded by `unicode61`. */
const FIRST = 0x4e00;
/** One character, so never a pair (six) nor a word (nine or more). */
export const GAP = "\u3007";

export function pairToken(owner: string, first: string, second: string): string {
  // Bun hashes a string as its UTF-8 bytes, whatever its representation in memory (a test checks).
  const hash = Bun.hash.xxHash64(`${owner}\u0000${first}\u0000${second}`);
  const low = Number(hash & 0xffffffffn);
  const high = Number(hash >> 32n);
  return String.fromCharCode(
    FIRST + (low & 0x7ff),
    FIRST + ((low >>> 11) & 0x7ff),
    FIRST + (low >>> 22),
    FIRST + (high & 0x7ff),
    FIRST + ((high >>> 11) & 0x7ff),
    FIRST + (high >>> 22),
  );
}

/** Whether a phrase of these query tokens can be searched as its pairs. */
export function pairable(tokens: string[]): boolean {
  return tokens.length > 1 && !tokens.some(isCjk);
}

/** The pair tokens of a column's index tokens (unowned), with a GAP where a run of words breaks. */
export function pairTokens(owner: string, tokens: string[]): string[] {
  const pairs: string[] = [];
  let broken = false;
  for (let at = 1; at < tokens.length; at++) {
    const first = tokens[at - 1]!;
    const second = tokens[at]!;
    if (isCjk(first) || isCjk(second)) {
      broken = pairs.length > 0;
      continue;
    }
    if (broken) pairs.push(GAP);
    broken = false;
    pairs.push(pairToken(owner, first, second));
  }
  return pairs;
}

