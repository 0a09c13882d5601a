import { indexTokens, tokenize } from "../search/tokens";
import type { QuestionTerm } from "./question-terms";

/** A passage's words as the index would hold them, for scoring without another query. */
export interface PassageWords {
  /** Folded tokens in order (a CJK character each): what names are matched against. */
  folded: string[];
  /** Index tokens (CJK bigrams) with their counts. */
  counts: Map<string, number>;
  length: number;
}

export function passageWords(text: string): PassageWords {
  const folded = tokenize(text).map((token) => token.text);
  const counts = new Map<string, number>();
  for (const token of indexTokens(folded)) counts.set(token, (counts.get(token) ?? 0) + 1);
  return { folded, counts, length: folded.length };
}

/** How often a question term occurs (a prefix term: every index token it starts). */
export function termFrequency(words: PassageWords, term: QuestionTerm): number {
  if (!term.prefix) return words.counts.get(term.token) ?? 0;
  let total = 0;
  for (const [token, count] of words.counts) if (token.startsWith(term.token)) total += count;
  return total;
}

const K1 = 1.2;
const B = 0.75;

/** Okapi BM25 of one passage, with document frequencies from the whole index (per note). */
export function bm25(words: PassageWords, terms: QuestionTerm[], idf: number[], averageLength: number): number {
  let score = 0;
  terms.forEach((term, index) => {
    const tf = termFrequency(words, term);
    if (tf > 0) score += (idf[index]! * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * words.length) / averageLength));
  });
  return score;
}

export function inverseDocumentFrequency(notes: number, matching: number): number {
  return Math.log(1 + (notes - matching + 0.5) / (matching + 0.5));
}

/** The folded token sequence of a name ("Daniel Kahneman" → daniel, kahneman; 卡尼曼 → 卡, 尼, 曼). */
export function nameTokens(name: string): string[] {
  return tokenize(name).map((token) => token.text);
}

/** Whether the passage holds the name as consecutive tokens. */
export function containsName(words: PassageWords, name: string[]): boolean {
  if (name.length === 0) return false;
  outer: for (let at = 0; at + name.length <= words.folded.length; at++) {
    for (let k = 0; k < name.length; k++) if (words.folded[at + k] !== name[k]) continue outer;
    return true;
  }
  return false;
}
