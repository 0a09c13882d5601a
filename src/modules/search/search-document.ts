import { createHash } from "node:crypto";
import { markdownPlainText } from "../../text/markdown-text";
import { indexTokens, tokenize } from "./tokens";
import { pairTokens } from "./word-pairs";

/** What the index holds for one note: the columns of `notes_fts`, in its order. */
export interface SearchDocument {
  scope: string;
  title: string;
  tags: string;
  body: string;
  /** The pairs of adjacent tokens of each text column (see word-pairs.ts), for phrases. */
  titlePairs: string;
  tagsPairs: string;
  bodyPairs: string;
  /** The body as plain text, kept for snippets. */
  text: string;
}

/**
 * Every indexed word carries its owner: 8 hex digits of the user id (fixed width, so no two
 * users' words can be confused). A search then reads only its user's postings and BM25 counts
 * its user's notes, with no scope list to intersect (that list costs as much as a common word).
 */
export function ownerPrefix(userId: number): string {
  return userId.toString(16).padStart(8, "0");
}

/** The `scope` column: the owner (for queries of exclusions only) and each exact tag. */
export function scopeTokens(userId: number, tags: string[] = []): string[] {
  return [`u${ownerPrefix(userId)}`, ...tags.map((tag) => tagToken(userId, tag))];
}

/** A tag filter is exact (case and all), so the tag is hashed, not folded; per user, like words. */
export function tagToken(userId: number, tag: string): string {
  return `t${createHash("sha256").update(`${userId}\u0000${tag}`).digest("hex").slice(0, 24)}`;
}

/** A column's words (each carrying its owner) and the pairs of adjacent ones. */
function column(userId: number, tokens: string[]): { words: string; pairs: string } {
  const owner = ownerPrefix(userId);
  return { words: tokens.map((token) => owner + token).join(" "), pairs: pairTokens(owner, tokens).join(" ") };
}

function textTokens(text: string): string[] {
  return indexTokens(tokenize(text).map((token) => token.text));
}

export function searchDocument(note: { userId: number; title: string; content: string; tags: string[] }): SearchDocument {
  const text = markdownPlainText(note.content);
  const title = column(note.userId, textTokens(note.title));
  // The tags are one run of tokens, as their column holds them: a phrase may span two tags.
  const tags = column(note.userId, note.tags.flatMap(textTokens));
  const body = column(note.userId, textTokens(text));
  return {
    scope: scopeTokens(note.userId, note.tags).join(" "),
    title: title.words,
    tags: tags.words,
    body: body.words,
    titlePairs: title.pairs,
    tagsPairs: tags.pairs,
    bodyPairs: body.pairs,
    text,
  };
}
