import { sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import type { QueryTerm } from "./parse-query";
import { tokenize, type Token } from "./tokens";

export const SNIPPET_LENGTH = 240;
// How much text comes before the first match in a snippet, so the match is read in its sentence.
const LEAD = 60;
// Enough candidate windows for any sensible note; a 1 MiB note of one repeated word stays fast.
const MAX_ANCHORS = 1000;

export interface Snippet {
  text: string;
  /** [start, end) UTF-16 offsets of each whole matched term in `text`. */
  highlights: [number, number][];
}

interface Occurrence {
  start: number;
  end: number;
  term: number;
}

/** Where each positive term occurs in the tokens, as the index matches it (a phrase is consecutive tokens). */
export function termOccurrences(tokens: Token[], terms: QueryTerm[]): Occurrence[] {
  const found: Occurrence[] = [];
  terms.forEach((term, index) => {
    if (term.negated) return;
    const last = term.tokens.length - 1;
    for (let at = 0; at + last < tokens.length; at++) {
      let matches = true;
      for (let k = 0; k <= last && matches; k++) {
        const text = tokens[at + k]!.text;
        matches = k === last && term.prefix ? text.startsWith(term.tokens[k]!) : text === term.tokens[k];
      }
      if (matches) found.push({ start: tokens[at]!.start, end: tokens[at + last]!.end, term: index });
    }
  });
  return found.sort((a, b) => a.start - b.start || b.end - a.end);
}

/**
 * At most 240 UTF-16 units of the note's plain text around the stretch where the most distinct
 * terms meet (the start of the text when only the title or tags matched), with the matches' offsets.
 */
export function snippetOf(text: string, terms: QueryTerm[]): Snippet {
  const occurrences = termOccurrences(tokenize(text), terms);
  let start = 0;
  if (text.length > SNIPPET_LENGTH && occurrences.length > 0) {
    let best = -1;
    for (let i = 0; i < Math.min(occurrences.length, MAX_ANCHORS); i++) {
      const from = Math.max(0, Math.min(occurrences[i]!.start - LEAD, text.length - SNIPPET_LENGTH));
      const inside = new Set<number>();
      // Occurrences are sorted by start: look only at the neighbours that can fall in the window.
      for (let j = i; j >= 0 && occurrences[j]!.start >= from; j--) if (occurrences[j]!.end <= from + SNIPPET_LENGTH) inside.add(occurrences[j]!.term);
      for (let j = i + 1; j < occurrences.length && occurrences[j]!.start < from + SNIPPET_LENGTH; j++) {
        if (occurrences[j]!.end <= from + SNIPPET_LENGTH) inside.add(occurrences[j]!.term);
      }
      if (inside.size > best) [best, start] = [inside.size, from];
    }
  }
  let end = Math.min(text.length, start + SNIPPET_LENGTH);
  // Never cut a surrogate pair in half.
  if (isLowSurrogate(text.charCodeAt(start))) start++;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--;
  const highlights: [number, number][] = [];
  for (const o of occurrences) {
    if (o.start < start || o.end > end) continue;
    const previous = highlights.at(-1);
    // Overlapping matches (a prefix inside a phrase) are one span.
    if (previous && o.start - start < previous[1]) previous[1] = Math.max(previous[1], o.end - start);
    else highlights.push([o.start - start, o.end - start]);
  }
  return { text: text.slice(start, end), highlights };
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Snippets of the given notes, from the plain text the index keeps; a note not indexed has none. */
export async function noteSnippets(db: Database, noteIds: number[], terms: QueryTerm[]): Promise<Map<number, Snippet>> {
  if (noteIds.length === 0) return new Map();
  const rows = await db.all<{ noteId: number; body: string }>(
    sql`select note_id as noteId, body from search_texts where note_id in ${sql`(${sql.join(noteIds.map((id) => sql`${id}`), sql`, `)})`}`,
  );
  return new Map(rows.map((row) => [Number(row.noteId), snippetOf(row.body, terms)]));
}
