import type { AskCitation, AskPassage } from "../schemas";

/** One passage as the LLM reads it: its sentences, each a block a citation can point at. */
export interface CitedDocument {
  passage: AskPassage;
  /** Sentence spans in the note's content (UTF-16), in order, inside the passage. */
  blocks: { start: number; end: number }[];
}

// A sentence ends at . ! ? (with closing quotes or brackets) before a space, at 。！？；, or at a line break.
const SENTENCE_END = /[.!?]+["'”’)\]]*(?=\s)|[。！？；]+["'”’」』）)]*|\n/g;

/**
 * The passages cut into sentences (our cut, not the API's, so Chinese is split where Chinese
 * sentences end). A citation then names a range of blocks, which maps to an exact span of the note.
 */
export function toCitedDocuments(passages: AskPassage[]): CitedDocument[] {
  return passages.map((passage) => {
    const blocks: { start: number; end: number }[] = [];
    const push = (from: number, to: number) => {
      while (from < to && /\s/.test(passage.text[from]!)) from++;
      while (to > from && /\s/.test(passage.text[to - 1]!)) to--;
      if (to > from) blocks.push({ start: passage.start + from, end: passage.start + to });
    };
    let from = 0;
    for (const match of passage.text.matchAll(SENTENCE_END)) {
      const end = match.index + match[0].length;
      push(from, end);
      from = end;
    }
    push(from, passage.text.length);
    return { passage, blocks };
  });
}

export function blockText(document: CitedDocument, index: number): string {
  const block = document.blocks[index]!;
  return document.passage.text.slice(block.start - document.passage.start, block.end - document.passage.start);
}

/**
 * A citation of blocks [startBlock, endBlock) of document `documentIndex` as a span of its note, or
 * null when the indexes name no blocks we sent (a model's answer is checked, not trusted).
 */
export function citationOf(
  documents: CitedDocument[],
  contents: Map<number, string>,
  location: { documentIndex: number; startBlock: number; endBlock: number },
): AskCitation | null {
  const document = documents[location.documentIndex];
  if (!document) return null;
  const { startBlock, endBlock } = location;
  if (!Number.isInteger(startBlock) || !Number.isInteger(endBlock) || startBlock < 0 || endBlock <= startBlock || endBlock > document.blocks.length) return null;
  const content = contents.get(document.passage.note_id);
  if (content === undefined) return null;
  const start = document.blocks[startBlock]!.start;
  const end = document.blocks[endBlock - 1]!.end;
  return { note_id: document.passage.note_id, title: document.passage.title, start, end, quote: content.slice(start, end) };
}

/** Numbers citations by first appearance: the same span cited twice keeps its number. */
export class CitationNumbers {
  readonly citations: AskCitation[] = [];

  numberOf(citation: AskCitation): { n: number; isNew: boolean } {
    const found = this.citations.findIndex((other) => other.note_id === citation.note_id && other.start === citation.start && other.end === citation.end);
    if (found >= 0) return { n: found + 1, isNew: false };
    this.citations.push(citation);
    return { n: this.citations.length, isNew: true };
  }
}
