import { InvalidInputError } from "../errors";
import { tokenize } from "./tokens";

/** One term of a query: a phrase of folded tokens (a single word is a phrase of one). */
export interface QueryTerm {
  tokens: string[];
  /** The last token is a prefix (`word*`). */
  prefix: boolean;
  negated: boolean;
}

export const MAX_QUERY_LENGTH = 200;

/**
 * Reads the contract's syntax (words, "phrases", -exclusions, prefix*) and nothing else: operators
 * and punctuation become ordinary words or vanish, since every token is later quoted for MATCH.
 */
export function parseQuery(q: string): QueryTerm[] {
  const terms: QueryTerm[] = [];
  // A quoted phrase (the closing quote optional), or a run of anything but spaces and quotes.
  for (const match of q.matchAll(/(-*)"([^"]*)"?(\*?)|[^\s"]+/gu)) {
    let negated: boolean;
    let prefix: boolean;
    let text: string;
    if (match[2] !== undefined) {
      negated = match[1] !== "";
      prefix = match[3] === "*";
      text = match[2];
    } else {
      const word = match[0];
      negated = word.startsWith("-");
      prefix = word.endsWith("*");
      text = word;
    }
    const tokens = tokenize(text).map((token) => token.text);
    if (tokens.length > 0) terms.push({ tokens, prefix, negated });
  }
  if (terms.length === 0) {
    throw new InvalidInputError(`There is nothing to search for in q: give at least one word, "phrase" or prefix* (quotes, dashes, * and punctuation alone are not searched)`);
  }
  return terms;
}
