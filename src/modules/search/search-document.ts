import { createHash } from "node:crypto";
import { markdownPlainText } from "../../text/markdown-text";
import { indexedText } from "./tokens";

/** What the index holds for one note: the columns of `notes_fts`, in its order. */
export interface SearchDocument {
  scope: string;
  title: string;
  tags: string;
  body: string;
  /** The body as plain text, kept for snippets. */
  text: string;
}

/** Owner and exact tags as single tokens of the `scope` column, which user terms never reach. */
export function scopeTokens(userId: number, tags: string[] = []): string[] {
  return [`u${userId}`, ...tags.map(tagToken)];
}

/** A tag filter is exact (case and all), so the tag is hashed, not folded. */
export function tagToken(tag: string): string {
  return `t${createHash("sha256").update(tag).digest("hex").slice(0, 24)}`;
}

export function searchDocument(note: { userId: number; title: string; content: string; tags: string[] }): SearchDocument {
  const text = markdownPlainText(note.content);
  return {
    scope: scopeTokens(note.userId, note.tags).join(" "),
    title: indexedText(note.title),
    tags: note.tags.map(indexedText).join(" "),
    body: indexedText(text),
    text,
  };
}
