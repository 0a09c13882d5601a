import type { AskCitation, AskPassage } from "../schemas";
import { CitationNumbers } from "./cited-documents";

/**
 * For an LLM without the Messages API's citations (an OpenAI-compatible server): the model is asked
 * for its answer with `[k]` markers and, for each k, the exact words it quotes. A quote is kept
 * only where it is found in a passage sent — compared with whitespace runs as one space and
 * straight/curly quotes alike — and then cites the note's exact span; a marker whose quote is not
 * found is dropped from the answer, so every marker left points at words the note really holds.
 */
export function citeQuotes(
  answer: string,
  quotes: { marker: number; quote: string }[],
  passages: AskPassage[],
  contents: Map<number, string>,
): { text: string; citations: AskCitation[] } {
  const numbers = new CitationNumbers();
  const renumbered = new Map<number, number>();
  for (const { marker, quote } of quotes) {
    if (renumbered.has(marker)) continue;
    const citation = locateQuote(quote, passages, contents);
    if (citation) renumbered.set(marker, numbers.numberOf(citation).n);
  }
  const text = answer
    .replace(/ ?\[(\d+)\]/g, (whole, digits: string) => {
      const n = renumbered.get(Number(digits));
      return n === undefined ? "" : whole.replace(digits, String(n));
    })
    .trim();
  return { text, citations: numbers.citations };
}

/** The first passage holding the quote (whitespace- and quote-mark-insensitive), as an exact span of its note. */
export function locateQuote(quote: string, passages: AskPassage[], contents: Map<number, string>): AskCitation | null {
  const wanted = normalised(quote.trim()).text;
  if (wanted.length < 2) return null;
  for (const passage of passages) {
    const content = contents.get(passage.note_id);
    if (content === undefined) continue;
    const { text, offsets } = normalised(passage.text);
    const at = text.indexOf(wanted);
    if (at < 0) continue;
    const start = passage.start + offsets[at]!;
    const end = passage.start + offsets[at + wanted.length - 1]! + 1;
    return { note_id: passage.note_id, title: passage.title, start, end, quote: content.slice(start, end) };
  }
  return null;
}

const QUOTE_MARKS: Record<string, string> = { "“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "「": '"', "」": '"' };

/** Whitespace runs as one space, curly quotes as straight; `offsets[i]` is where character i came from. */
function normalised(value: string): { text: string; offsets: number[] } {
  let text = "";
  const offsets: number[] = [];
  for (let at = 0; at < value.length; at++) {
    const char = value[at]!;
    if (/\s/.test(char)) {
      if (text.endsWith(" ")) continue;
      text += " ";
    } else text += QUOTE_MARKS[char] ?? char;
    offsets.push(at);
  }
  return { text, offsets };
}
