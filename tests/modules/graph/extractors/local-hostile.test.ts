import { describe, expect, test } from "bun:test";
import { conceptKey } from "../../../../src/modules/graph/concept-key";
import { type NoteExtraction, type NoteForExtraction, noteText } from "../../../../src/modules/graph/extraction";
import { buildCorpusStats, createLocalExtractor } from "../../../../src/modules/graph/extractors/local";
import { loadSampleNotes } from "../../../fixtures/notes/load-note";

const samples = loadSampleNotes();
const extractor = createLocalExtractor(buildCorpusStats(samples));
const noContext = { existingConcepts: [] };
const MIB = 1 << 20;
// Generous: the suite shares a busy machine; a quadratic path would take minutes, not seconds.
const SECONDS_PER_MIB = 5;

function hostile(content: string, title = "Hostile"): NoteForExtraction {
  return { id: 9, title, content, tags: [] };
}

async function extractTimed(note: NoteForExtraction): Promise<{ result: NoteExtraction; seconds: number }> {
  const started = performance.now();
  const result = await extractor.extract(note, noContext);
  return { result, seconds: (performance.now() - started) / 1000 };
}

function expectWellFormed(note: NoteForExtraction, result: NoteExtraction): void {
  const length = noteText(note).length;
  expect(result.concepts.length).toBeLessThanOrEqual(60);
  expect(result.relations.length).toBeLessThanOrEqual(40);
  for (const concept of result.concepts) {
    expect(conceptKey(concept.name)).not.toBe("");
    expect(concept.name).not.toMatch(/\p{Cc}/u);
    expect(concept.description.length).toBeLessThanOrEqual(160);
    expect(concept.mentions.length).toBeGreaterThanOrEqual(1);
    expect(concept.mentions.length).toBeLessThanOrEqual(20);
    for (const mention of concept.mentions) {
      expect(mention.start).toBeGreaterThanOrEqual(0);
      expect(mention.end).toBeGreaterThanOrEqual(mention.start);
      expect(mention.end).toBeLessThanOrEqual(length);
    }
  }
}

describe("local extractor: hostile input", () => {
  test("a 1 MiB note of real prose finishes quickly with a bounded result", async () => {
    const prose = samples.map((sample) => sample.content).join("\n\n");
    const note = hostile(prose.repeat(Math.ceil(MIB / prose.length)).slice(0, MIB));
    const { result, seconds } = await extractTimed(note);
    expect(seconds).toBeLessThan(SECONDS_PER_MIB);
    expectWellFormed(note, result);
    expect(result.concepts.length).toBeGreaterThan(10);
  });

  const pathological: [string, string][] = [
    ["one endless word", "a".repeat(MIB)],
    ["only punctuation", "!?。，".repeat(MIB / 4)],
    ["hashes", "#a ".repeat(MIB / 3)],
    ["emphasis markers", "*x* **y** __z__ ==w== ".repeat(MIB / 22)],
    ["unclosed markup", "**[[`<!--![](".repeat(MIB / 13)],
    ["backticks", "`".repeat(MIB)],
    ["CJK without punctuation", "机器学习是人工智能的一个分支神经网络通过反向传播训练".repeat(MIB / 26)],
    ["headings", "## Heading number one\ntext under heading\n".repeat(MIB / 40)],
    ["wikilinks", "[[Link target|alias]] ".repeat(MIB / 22)],
    ["newlines", "\n".repeat(MIB)],
    ["email-like words", "user.name@example.com word.word.word ".repeat(MIB / 37)],
    ["fences", "```\ncode\n".repeat(MIB / 9)],
    ["many distinct words", Array.from({ length: MIB / 8 }, (_, index) => `w${index.toString(36)}x`).join(" ")],
  ];
  for (const [name, content] of pathological) {
    test(`1 MiB of ${name} finishes quickly`, async () => {
      const note = hostile(content);
      const { result, seconds } = await extractTimed(note);
      expect(seconds).toBeLessThan(SECONDS_PER_MIB);
      expectWellFormed(note, result);
    });
  }

  test("a 1 MiB title and 5,000 tags are survived", async () => {
    const tags = Array.from({ length: 5000 }, (_, index) => `tag${index}`);
    const note = { ...hostile("Short body about **graphs**."), title: "Title ".repeat(MIB / 6), tags };
    const { result, seconds } = await extractTimed(note);
    expect(seconds).toBeLessThan(SECONDS_PER_MIB);
    expectWellFormed(note, result);
  });

  test("control characters, emoji, right-to-left text and lone surrogates are handled", async () => {
    const content = [
      "Intro\u0000 with \u0007bell and \u001b[31mANSI\u001b[0m codes about **neural\u0000networks**.",
      "Emoji 🚀🔥 next to **rocket science** 👩‍🚀 and #🚀 #emoji_tag 👍🏽.",
      "\u202Eevil override\u202C and **שלום עולם** and **الذكاء الاصطناعي** and #עברית.",
      "Broken \uD800 surrogate \uDC00 pairs around **graph theory** \uD83D.",
    ].join("\n\n");
    const note = { ...hostile(content, "Mixed\u0000 🚀 title"), tags: ["🚀", "\u0000", "ok tag"] };
    const { result } = await extractTimed(note);
    expectWellFormed(note, result);
    const keys = result.concepts.map((concept) => conceptKey(concept.name));
    expect(keys).toEqual(expect.arrayContaining(["rocket science", "graph theory", "emoji tag", "ok tag", "שלום עולם", "עברית"]));
  });

  test("throughput on 2,000 generated notes (printed, not asserted)", async () => {
    const notes = Array.from({ length: 2000 }, (_, index): NoteForExtraction => {
      const base = samples[index % samples.length]!;
      const extra = `\n\nNote ${index}: follow up on topic${index % 53} with project${index % 17}. 回顾第${index % 7}周的进展。`;
      return { ...base, id: index, content: base.content.repeat(1 + (index % 2)) + extra };
    });
    const characters = notes.reduce((sum, note) => sum + note.content.length, 0);
    const started = performance.now();
    const corpus = buildCorpusStats(notes);
    const corpusSeconds = (performance.now() - started) / 1000;
    const local = createLocalExtractor(corpus);
    let concepts = 0;
    for (const note of notes) concepts += (await local.extract(note, noContext)).concepts.length;
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `local extractor: ${notes.length} notes (${(characters / notes.length / 1024).toFixed(1)} KiB avg) in ${seconds.toFixed(2)} s ` +
        `(corpus ${corpusSeconds.toFixed(2)} s), ${(notes.length / seconds).toFixed(0)} notes/s, ${(concepts / notes.length).toFixed(1)} concepts/note`,
    );
    expect(concepts).toBeGreaterThan(0);
  }, 120_000);
});
