import { describe, expect, test } from "bun:test";
import { AnswerWriter } from "../../../src/modules/ask/answers/answer-writer";
import { citationOf, toCitedDocuments } from "../../../src/modules/ask/answers/cited-documents";
import { passagesWithin } from "../../../src/modules/ask/answers/input-budget";
import { splitQuotedAnswer } from "../../../src/modules/ask/answers/openai";
import { citeQuotes, locateQuote } from "../../../src/modules/ask/answers/quoted-answer";
import type { AskPassage } from "../../../src/modules/ask/schemas";

const content = "Intro line.\n\nAnchoring shifts estimates. Loss aversion hurts twice!\n\n锚定效应很常见。损失厌恶也是。";
const passage = (note_id: number, start: number, end: number): AskPassage => ({ note_id, title: `Note ${note_id}`, start, end, text: content.slice(start, end), score: 1, concepts: [], page: null, picture: null });
const english = passage(1, content.indexOf("Anchoring"), content.indexOf("!") + 1);
const chinese = passage(1, content.indexOf("锚定"), content.length);
const contents = new Map([[1, content]]);

describe("cited documents", () => {
  test("each passage's sentences are its blocks, and a block range maps to the note's exact span", () => {
    const documents = toCitedDocuments([english, chinese]);
    expect(documents[1]!.blocks.map(({ start, end }) => content.slice(start, end))).toEqual(["锚定效应很常见。", "损失厌恶也是。"]);
    const citation = citationOf(documents, contents, { documentIndex: 0, startBlock: 0, endBlock: 2 })!;
    expect(citation.quote).toBe("Anchoring shifts estimates. Loss aversion hurts twice!");
    expect(content.slice(citation.start, citation.end)).toBe(citation.quote);
  });

  test("block indexes the model made up are dropped, not trusted", () => {
    const documents = toCitedDocuments([english]);
    for (const location of [
      { documentIndex: 1, startBlock: 0, endBlock: 1 },
      { documentIndex: 0, startBlock: 1, endBlock: 1 },
      { documentIndex: 0, startBlock: 0, endBlock: 9 },
      { documentIndex: 0, startBlock: -1, endBlock: 1 },
    ]) {
      expect(citationOf(documents, contents, location)).toBeNull();
    }
  });

  test("the writer numbers citations by first appearance and streams exactly what it returns", () => {
    const pieces: string[] = [];
    const cited: number[] = [];
    const writer = new AnswerWriter(toCitedDocuments([english, chinese]), contents, { delta: (text) => pieces.push(text), citation: (n) => cited.push(n) });
    writer.text("Anchoring shifts estimates");
    writer.endBlock([{ documentIndex: 0, startBlock: 0, endBlock: 1 }]);
    writer.text(", and 锚定效应很常见");
    writer.endBlock([{ documentIndex: 1, startBlock: 0, endBlock: 1 }, { documentIndex: 0, startBlock: 0, endBlock: 1 }]);
    writer.text(".");
    const { text, citations } = writer.result();
    expect(text).toBe("Anchoring shifts estimates [1], and 锚定效应很常见 [2][1].");
    expect(pieces.join("")).toBe(text);
    expect(cited).toEqual([1, 2]);
    expect(citations.map((citation) => citation.quote)).toEqual(["Anchoring shifts estimates.", "锚定效应很常见。"]);
  });

  test("ASK_MAX_INPUT_TOKENS keeps the best passages that fit, in order", () => {
    const long = { ...english, text: "word ".repeat(900) };
    expect(passagesWithin([english, long, chinese], 100)).toEqual([english]);
    expect(passagesWithin([english, chinese], 10_000)).toEqual([english, chinese]);
    expect(passagesWithin([long], 100)).toEqual([]);
  });
});

describe("quoted answers (OpenAI-compatible servers)", () => {
  test("a quote is found across line breaks and curly quotes, and cites the exact span", () => {
    const note = "He said “stay hungry”\n   and   left.";
    const quoted: AskPassage = { note_id: 2, title: "Quote", start: 0, end: note.length, text: note, score: 1, concepts: [], page: null, picture: null };
    const citation = locateQuote('said "stay hungry" and left', [quoted], new Map([[2, note]]))!;
    expect(citation.quote).toBe("said “stay hungry”\n   and   left");
    expect(note.slice(citation.start, citation.end)).toBe(citation.quote);
  });

  test("markers whose quotes are not in a passage are dropped; the rest are renumbered", () => {
    const { text, citations } = citeQuotes(
      "Anchoring shifts estimates [1]. Bananas are blue [2]. Loss hurts [3].",
      [
        { marker: 1, quote: "Anchoring shifts estimates." },
        { marker: 2, quote: "Bananas are blue" },
        { marker: 3, quote: "Loss aversion   hurts twice!" },
      ],
      [english],
      contents,
    );
    expect(text).toBe("Anchoring shifts estimates [1]. Bananas are blue. Loss hurts [2].");
    expect(citations.map((citation) => citation.quote)).toEqual(["Anchoring shifts estimates.", "Loss aversion hurts twice!"]);
  });
});

test("a quoted reply splits into the answer and its [k] quotes, however the model dresses them", () => {
  expect(splitQuotedAnswer('Anchoring shifts estimates [1].\n\n**Quotes:**\n- [1]: “Anchoring shifts estimates.”\n[2] 「锚定效应很常见」\nnot a quote line')).toEqual({
    text: "Anchoring shifts estimates [1].",
    quotes: [
      { marker: 1, quote: "Anchoring shifts estimates." },
      { marker: 2, quote: "锚定效应很常见" },
    ],
  });
  expect(splitQuotedAnswer("No quotes at all [1].")).toEqual({ text: "No quotes at all [1].", quotes: [] });
});
