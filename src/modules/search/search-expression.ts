import type { QueryTerm } from "./parse-query";
import { ownerPrefix, scopeTokens, tagToken } from "./search-document";
import { queryTokens } from "./tokens";
import { pairable, pairTokens } from "./word-pairs";

/** Title and tags with their pair twins: a term is found there in its words or in its pairs. */
const NAMED_COLUMNS = "{title tags title_pairs tags_pairs}";

/**
 * One term as FTS5 syntax: a phrase of two or more whole words (no CJK) is the phrase of its word
 * pairs (short postings, see word-pairs.ts); anything else (a word, CJK text, a phrase ending in a
 * prefix) is the phrase of its tokens. Tokens hold only letters and digits, but a doubled quote keeps any token a literal.
 * No column filter is needed: words live only in title, tags and body, pairs only in their
 * twins, scope tokens only in `scope`.
 */
function phrase(term: QueryTerm, owner: string): string {
  const { tokens, prefix } = queryTokens(term.tokens, term.prefix);
  const indexed = pairable(tokens) && !prefix ? pairTokens(owner, tokens) : tokens.map((token) => owner + token);
  return `"${indexed.join(" ").replaceAll('"', '""')}"${prefix ? "*" : ""}`;
}

export interface SearchExpressions {
  /** Every note matching the query: the two groups below together. */
  all: string;
  /** Notes matching the query in their title or tags (at least one term there). */
  named: string | null;
  /** Notes matching the query in their body only (every note when `named` is null). */
  bodyOnly: string;
}

/**
 * FTS5 expressions for the two ranking groups. The user is in every word (and the tag a token of
 * the `scope` column) inside MATCH, so the ranked query never joins or filters outside the index.
 */
export function searchExpressions(terms: QueryTerm[], scope: { userId: number; tag?: string }): SearchExpressions {
  const owner = ownerPrefix(scope.userId);
  const positive = terms.filter((term) => !term.negated).map((term) => phrase(term, owner));
  const negative = terms.filter((term) => term.negated).map((term) => phrase(term, owner));
  // Words carry their owner; only a query of exclusions alone needs the owner's scope token.
  const scopeFilter = [
    ...(positive.length === 0 ? [scopeTokens(scope.userId)[0]!] : []),
    ...(scope.tag === undefined ? [] : [tagToken(scope.userId, scope.tag)]),
  ].map((token) => `"${token}"`);
  const matching = [...scopeFilter, ...positive].join(" AND ");
  const excluded = negative.length > 0 ? negative.join(" OR ") : null;
  const all = excluded ? `(${matching}) NOT (${excluded})` : matching;
  if (positive.length === 0) return { all, named: null, bodyOnly: all };
  const inNames = `${NAMED_COLUMNS}: (${positive.join(" OR ")})`;
  return {
    all,
    named: excluded ? `(${matching} AND ${inNames}) NOT (${excluded})` : `${matching} AND ${inNames}`,
    bodyOnly: `(${matching}) NOT (${excluded ? `${inNames} OR ${excluded}` : inNames})`,
  };
}
