// The local extractor's candidates beyond the tagger's noun phrases: word strings that recur, titles the
// note's capitals set apart, list heads that are statements, and names no note writes in lower case.
import { describe, expect, test } from "bun:test";
import { conceptKey } from "../../../../src/modules/graph/concept-key";
import type { NoteExtraction, NoteForExtraction } from "../../../../src/modules/graph/extraction";
import { buildCorpusStats, createLocalExtractor } from "../../../../src/modules/graph/extractors/local";

const noContext = { existingConcepts: [] };

function note(id: number, title: string, content: string): NoteForExtraction {
  return { id, title, content, tags: [] };
}

async function extractAll(notes: NoteForExtraction[]): Promise<NoteExtraction[]> {
  const extractor = createLocalExtractor(buildCorpusStats(notes));
  return Promise.all(notes.map((one) => extractor.extract(one, noContext)));
}

const names = (extraction: NoteExtraction) => extraction.concepts.map((concept) => conceptKey(concept.name));

describe("local extractor: repeated word strings", () => {
  test("a phrase the tagger breaks (run read as a verb) is a concept where notes repeat it", async () => {
    const notes = [
      note(1, "Week 3", "Tuesday: tempo run, 8 km at threshold. Thursday was easy, and my legs felt heavy after the long drive."),
      note(2, "Week 4", "Coach wants one tempo run every week until the taper. Saturday I ran with the club along the canal."),
    ];
    const [first, second] = await extractAll(notes);
    expect(names(first!)).toContain("tempo run");
    expect(names(second!)).toContain("tempo run");
  });

  test("said once in a corpus that never repeats it, the same string is not a concept", async () => {
    const [only] = await extractAll([
      note(1, "Week 3", "Tuesday: tempo run, 8 km at threshold. Thursday was easy, and my legs felt heavy after the long drive."),
      note(2, "Groceries", "Bought oat milk, bananas and rice for the week; the market on Elm Street closes early on Sundays."),
    ]);
    expect(names(only!)).not.toContain("tempo run");
  });

  test("a number inside a repeated phrase and a noun's 'of' keep it whole", async () => {
    const notes = [
      note(1, "Base building", "Most weeks are zone 2 training. The dichotomy of control helps when a session goes badly."),
      note(2, "Podcast notes", "He argues zone 2 training builds mitochondria, and quotes Epictetus on the dichotomy of control."),
    ];
    for (const extraction of await extractAll(notes)) {
      expect(names(extraction)).toContain("zone 2 training");
      expect(names(extraction)).toContain("dichotomy of control");
    }
  });
});

describe("local extractor: typography", () => {
  test("titles joined by a coordinator are two titles", async () => {
    const [listening] = await extractAll([
      note(1, "Listening log", "Ten years separate Kind of Blue and In a Silent Way, and the band changed completely in between."),
    ]);
    expect(names(listening!)).toContain("kind of blue");
    expect(names(listening!)).toContain("in a silent way");
    expect(names(listening!)).not.toContain("kind of blue and in a silent way");
  });

  test("two names joined by a companion's 'with' are two names, not a title", async () => {
    const [saved] = await extractAll([
      note(1, "Saved essay", "Matuschak also built Quantum Country with Michael Nielsen, an essay on quantum computing."),
    ]);
    expect(names(saved!)).toContain("quantum country");
    expect(names(saved!)).toContain("michael nielsen");
    expect(names(saved!)).not.toContain("quantum country with michael nielsen");
  });

  test("a list head that is an instruction or a statement is no concept; an article before a term is not its name", async () => {
    const [summary] = await extractAll([
      note(
        1,
        "Talk summary",
        [
          "- The CODE method: capture, organize, distill, express.",
          "- Organize with PARA: projects, areas, resources, archives.",
          "- Huberman is cautious about melatonin: low doses at most.",
        ].join("\n"),
      ),
    ]);
    const found = names(summary!);
    expect(found).toContain("code method");
    expect(found).not.toContain("the code method");
    expect(found).not.toContain("organize with para");
    expect(found).not.toContain("huberman is cautious about melatonin");
  });
});

describe("local extractor: everyday vocabulary", () => {
  test("a common English word said once is no concept; a note that keeps saying it may make it one", async () => {
    const [once, often] = await extractAll([
      note(1, "Building a Second Brain", "Forte's method works in any app; he demos Evernote and Notion side by side."),
      note(2, "Sync trouble", "The app lost a day of edits. The app support team blamed the sync server, then the app again."),
    ]);
    expect(names(once!)).not.toContain("app");
    expect(names(once!)).toContain("evernote");
    expect(names(often!)).toContain("app");
  });
});

describe("local extractor: names", () => {
  test("an everyday word no note writes in lower case is a name; one written in lower case is not", async () => {
    const notes = [
      note(1, "Kyoto, day one", "We took the early train from Tokyo and reached the temple before the crowds. The plan held."),
      note(2, "Kyoto, day two", "Friends in Tokyo said the moss garden is best in the rain. Our plan for the evening was ramen."),
    ];
    for (const extraction of await extractAll(notes)) {
      expect(names(extraction)).toContain("tokyo");
      expect(names(extraction)).not.toContain("plan");
    }
  });
});
