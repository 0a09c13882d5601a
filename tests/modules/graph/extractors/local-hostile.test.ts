import { describe, expect, test } from "bun:test";
import { conceptKey } from "../../../../src/modules/graph/concept-key";
import { type NoteExtraction, type NoteForExtraction, noteText } from "../../../../src/modules/graph/extraction";
import { buildCorpusStats, createLocalExtractor, DEFAULT_LOCAL_PARAMETERS } from "../../../../src/modules/graph/extractors/local";
import { MAX_EXPLICIT_CONCEPTS } from "../../../../src/modules/graph/extractors/local/explicit-concepts";
import { hostileNotes } from "../../../fixtures/notes/hostile-notes";
import { loadSampleNotes } from "../../../fixtures/notes/load-note";

const samples = loadSampleNotes();
const extractor = createLocalExtractor(buildCorpusStats(samples));
const noContext = { existingConcepts: [] };
// Markup's concepts and the key phrases a long note earns, at most.
const MAX_CONCEPTS = MAX_EXPLICIT_CONCEPTS + DEFAULT_LOCAL_PARAMETERS.maxKeyPhrases;

function hostile(content: string, title = "Hostile"): NoteForExtraction {
  return { id: 9, title, content, tags: [] };
}

function expectWellFormed(note: NoteForExtraction, result: NoteExtraction): void {
  const length = noteText(note).length;
  expect(result.concepts.length).toBeLessThanOrEqual(MAX_CONCEPTS);
  expect(result.relations.length).toBeLessThanOrEqual(60);
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

// Seconds per MiB are measured by scripts/bench/local-extractor.ts; here a slow path shows as the test timing out.
describe("local extractor: hostile input", () => {
  for (const { name, note } of hostileNotes()) {
    test(`${name} gives a bounded, well-formed result`, async () => {
      const result = await extractor.extract(note, noContext);
      expectWellFormed(note, result);
      if (name === "real prose") expect(result.concepts.length).toBeGreaterThan(10);
    });
  }

  test("control characters, emoji, right-to-left text and lone surrogates are handled", async () => {
    const content = [
      "Intro\u0000 with \u0007bell and \u001b[31mANSI\u001b[0m codes about **neural\u0000networks**.",
      "Emoji 🚀🔥 next to **rocket science** 👩‍🚀 and #🚀 #emoji_tag 👍🏽.",
      "\u202Eevil override\u202C and **שלום עולם** and **الذكاء الاصطناعي** and #עברית.",
      "Broken \uD800 surrogate \uDC00 pairs around **graph theory** \uD83D.",
    ].join("\n\n");
    const note = { ...hostile(content, "Mixed\u0000 🚀 title"), tags: ["🚀", "\u0000", "ok tag"] };
    const result = await extractor.extract(note, noContext);
    expectWellFormed(note, result);
    const keys = result.concepts.map((concept) => conceptKey(concept.name));
    expect(keys).toEqual(expect.arrayContaining(["rocket science", "graph theory", "emoji tag", "ok tag", "שלום עולם", "עברית"]));
  });
});
