import type { AskCitation } from "../schemas";
import type { AnswerListener } from "./answerer";
import { CitationNumbers, citationOf, type CitedDocument } from "./cited-documents";

/**
 * Puts an answer together from the model's text blocks: the text as written, then after a block
 * that cites, its markers (` [1][2]`), each number a citation mapped to its note's exact span.
 * Tells the listener each piece as it comes, so a stream shows the answer being written.
 */
export class AnswerWriter {
  #text = "";
  readonly #numbers = new CitationNumbers();

  constructor(
    private readonly documents: CitedDocument[],
    private readonly contents: Map<number, string>,
    private readonly listener: AnswerListener | undefined,
  ) {}

  text(piece: string): void {
    if (!piece) return;
    this.#text += piece;
    this.listener?.delta(piece);
  }

  endBlock(locations: { documentIndex: number; startBlock: number; endBlock: number }[]): void {
    const numbers: number[] = [];
    for (const location of locations) {
      const citation = citationOf(this.documents, this.contents, location);
      if (!citation) continue;
      const { n, isNew } = this.#numbers.numberOf(citation);
      if (isNew) this.listener?.citation(n, citation);
      if (!numbers.includes(n)) numbers.push(n);
    }
    if (numbers.length === 0) return;
    // Streamed text cannot be taken back, so the markers follow it as written (after a space when it ends on a word).
    const markers = numbers.map((n) => `[${n}]`).join("");
    this.text(/\s$/.test(this.#text) || this.#text === "" ? markers : ` ${markers}`);
  }

  result(): { text: string; citations: AskCitation[] } {
    return { text: this.#text, citations: this.#numbers.citations };
  }
}
