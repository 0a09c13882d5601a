import { describe, expect, test } from "bun:test";
import { conceptKey } from "../../../../src/modules/graph/concept-key";
import {
  type ExtractedConcept,
  type NoteExtraction,
  type NoteForExtraction,
  noteText,
} from "../../../../src/modules/graph/extraction";
import { buildCorpusStats, createLocalExtractor, LOCAL_CONCEPT_TYPES } from "../../../../src/modules/graph/extractors/local";
import { MAX_RELATIONS } from "../../../../src/modules/graph/extractors/local/relations";
import { STOPWORDS } from "../../../../src/modules/graph/extractors/local/stopwords";
import { loadNote, loadSampleNotes } from "../../../fixtures/notes/load-note";

const samples = loadSampleNotes();
const extractor = createLocalExtractor(buildCorpusStats(samples));
const noContext = { existingConcepts: [] };

function note(content: string, overrides: Partial<NoteForExtraction> = {}): NoteForExtraction {
  return { id: 100, title: "Weekly review", content, tags: [], ...overrides };
}

function find(extraction: NoteExtraction, name: string): ExtractedConcept | undefined {
  const key = conceptKey(name);
  return extraction.concepts.find((concept) => conceptKey(concept.name) === key);
}

function typeOf(extraction: NoteExtraction, name: string): string | undefined {
  return find(extraction, name)?.type;
}

function related(extraction: NoteExtraction, a: string, b: string): boolean {
  const [keyA, keyB] = [conceptKey(a), conceptKey(b)];
  return extraction.relations.some((relation) => {
    const pair = [conceptKey(relation.source), conceptKey(relation.target)];
    return (pair[0] === keyA && pair[1] === keyB) || (pair[0] === keyB && pair[1] === keyA);
  });
}

const keys = (extraction: NoteExtraction) => extraction.concepts.map((concept) => conceptKey(concept.name));

describe("local extractor: explicit structure", () => {
  test("tags, #hashtags, [[links]], headings, code and bold terms become typed concepts", async () => {
    const result = await extractor.extract(loadNote("gradient-descent.md"), noContext);
    expect(typeOf(result, "machine-learning")).toBe("tag");
    expect(typeOf(result, "optimization")).toBe("tag");
    expect(typeOf(result, "ml")).toBe("tag");
    expect(typeOf(result, "Backpropagation")).toBe("link");
    expect(typeOf(result, "Stochastic Gradient Descent")).toBe("link");
    expect(find(result, "Stochastic Gradient Descent")?.aliases).toContain("SGD");
    // The alias is the link's, not a separate key phrase.
    expect(find(result, "SGD")).toBeUndefined();
    expect(typeOf(result, "Learning rate")).toBe("topic");
    expect(typeOf(result, "Momentum")).toBe("topic");
    expect(typeOf(result, "torch.optim")).toBe("technology");
    expect(typeOf(result, "loss function")).toBe("concept");
    expect(typeOf(result, "machine learning")).toBe("concept");
    for (const concept of result.concepts) expect(LOCAL_CONCEPT_TYPES).toContain(concept.type as never);
  });

  test("the title is a topic only when it is a short noun phrase", async () => {
    expect(typeOf(await extractor.extract(loadNote("gradient-descent.md"), noContext), "Gradient descent")).toBe("topic");
    const book = await extractor.extract(loadNote("thinking-fast-and-slow.md"), noContext);
    expect(typeOf(book, "Thinking, Fast and Slow")).toBe("topic");
    expect(find(book, "Book notes")).toBeUndefined();
    const sentence = await extractor.extract(note("Some text about **PostgreSQL**.", { title: "What I learned while migrating the billing database" }), noContext);
    expect(sentence.concepts.map((concept) => concept.type)).not.toContain("topic");
    expect(find(await extractor.extract(note("Plain text."), noContext), "Weekly review")).toBeUndefined();
  });

  test("a layout label before a colon is dropped from titles and headings", async () => {
    const content = "## Step 1: Preheat the oven\n\nHeat it.\n\n## Part II: Loss aversion\n\nLosses loom.\n\n## 第一章：机器学习概述\n\n内容。";
    const result = await extractor.extract(note(content, { title: "Chapter 3: Prospect theory" }), noContext);
    const topics = result.concepts.filter((concept) => concept.type === "topic").map((concept) => concept.name);
    expect(topics).toEqual(["Prospect theory", "Preheat the oven", "Loss aversion", "机器学习概述"]);
    expect(keys(result)).not.toContain("ii");
  });

  test("generic headings divide sections but are not concepts", async () => {
    const result = await extractor.extract(loadNote("sourdough-bread.md"), noContext);
    expect(find(result, "Ingredients")).toBeUndefined();
    expect(find(result, "Method")).toBeUndefined();
    expect(typeOf(result, "baking")).toBe("tag");
  });

  test("hashtags skip headings, numbers, URL fragments, entities, colours and C#", async () => {
    const content = [
      "# Heading",
      "#tag1 #123 issue #42 in C# and &#123; colour #ff0000 #机器学习 #machine_learning",
      "see https://example.com/page#fragment and [[Note#Section]] (#inline)",
    ].join("\n");
    const result = await extractor.extract(note(content), noContext);
    const tags = result.concepts.filter((concept) => concept.type === "tag").map((concept) => concept.name);
    expect(tags.sort()).toEqual(["inline", "machine learning", "tag1", "机器学习"].sort());
  });

  test("fenced code, images, link targets, URLs and HTML are not read", async () => {
    const content = [
      "Intro about **caching**.",
      "```bash",
      "# not a heading",
      "export FOOBAR_TOKEN=1 #hashtaginside **boldinside** [[linkinside]]",
      "```",
      "![diagram](https://img.example.com/architecture-diagram.png)",
      "Read [the guide](https://docs.example.com/zebrafish-guide) and https://zebrafish.example.org/quux.",
      "<div class=\"wombat\">html</div> <!-- hidden wombat comment -->",
    ].join("\n");
    const result = await extractor.extract(note(content), noContext);
    const all = keys(result).join(" | ");
    for (const hidden of ["heading", "foobar", "hashtaginside", "boldinside", "linkinside", "diagram", "png", "zebrafish", "quux", "wombat", "example"]) {
      expect(all).not.toContain(hidden);
    }
    expect(typeOf(result, "caching")).toBe("concept");
  });

  test("indented code is not read, but an indented paragraph of a list item is", async () => {
    const content = [
      "Notes on **request batching** in the client.",
      "",
      "    const batchQueue = createBatchQueue(maxBatchSize);",
      "    batchQueue.flushPendingRequests();",
      "",
      "\tflushPendingRequests(batchQueue); // tab-indented too",
      "",
      "The batch queue flushes pending requests. Request batching saves round trips.",
      "",
      "- Idea: **adaptive windows**",
      "",
      "    Adaptive windows resize with the backpressure signal. Backpressure signal matters.",
    ].join("\n");
    const result = await extractor.extract(note(content), noContext);
    const all = keys(result).join(" | ");
    for (const hidden of ["batchqueue", "flushpendingrequests", "maxbatchsize", "tab-indented"]) expect(all).not.toContain(hidden);
    expect(keys(result)).toEqual(expect.arrayContaining(["request batching", "adaptive windows", "backpressure signal"]));
  });

  test("emphasis becomes a concept only when it names something", async () => {
    const content = [
      "This is *really* important: __vector clocks__ order events, ==CRDTs== merge them,",
      "and *Lamport timestamps* are simpler. **Note:** **Step 1** is **the very first thing you should do before anything else**.",
    ].join("\n");
    const result = await extractor.extract(note(content), noContext);
    expect(keys(result)).toEqual(expect.arrayContaining(["vector clocks", "crdts", "lamport timestamps"]));
    for (const absent of ["really", "note", "step 1", "the very first thing you should do before anything else"]) {
      expect(keys(result)).not.toContain(absent);
    }
  });

  test("front matter is skipped and setext headings are headings", async () => {
    const content = ["---", "aliases: [zymurgy]", "---", "Fermentation", "============", "", "Yeast turns **sugar** into alcohol."].join("\n");
    const result = await extractor.extract(note(content), noContext);
    expect(keys(result)).not.toContain("zymurgy");
    expect(typeOf(result, "Fermentation")).toBe("topic");
    expect(related(result, "Fermentation", "sugar")).toBe(true);
  });

  test("a tag that never occurs in the text is mentioned at the title", async () => {
    const input = note("Nothing relevant here.", { tags: ["errands"] });
    const result = await extractor.extract(input, noContext);
    expect(find(result, "errands")?.mentions).toEqual([{ start: 0, end: input.title.length }]);
  });

  test("names from the user's graph are reused for the same key", async () => {
    const result = await extractor.extract(loadNote("gradient-descent.md"), { existingConcepts: ["Loss Function", "ADAM"] });
    expect(result.concepts.map((concept) => concept.name)).toContain("Loss Function");
    expect(result.concepts.map((concept) => concept.name)).toContain("ADAM");
  });

  test("a build's one list of names is read again when it grows", async () => {
    const names = ["Loss Function"];
    const first = await extractor.extract(loadNote("gradient-descent.md"), { existingConcepts: names });
    expect(first.concepts.map((concept) => concept.name)).not.toContain("ADAM");
    names.push("ADAM");
    const second = await extractor.extract(loadNote("gradient-descent.md"), { existingConcepts: names });
    expect(second.concepts.map((concept) => concept.name)).toContain("Loss Function");
    expect(second.concepts.map((concept) => concept.name)).toContain("ADAM");
  });
});

describe("local extractor: key phrases", () => {
  test("salient phrases of English notes appear", async () => {
    const gradient = keys(await extractor.extract(loadNote("gradient-descent.md"), noContext));
    expect(gradient).toContain("gradient descent");
    expect(gradient).toContain("batch size");
    const bread = keys(await extractor.extract(loadNote("sourdough-bread.md"), noContext));
    // "dough" alone is an everyday word (issue 46): "pizza dough" names the concept.
    expect(bread).toEqual(expect.arrayContaining(["starter", "dutch oven", "bread flour", "pizza dough"]));
    const book = keys(await extractor.extract(loadNote("thinking-fast-and-slow.md"), noContext));
    expect(book).toEqual(expect.arrayContaining(["loss aversion", "anchoring effect", "system 1", "prospect theory"]));
  });

  test("stopwords, numbers and generic words never become concepts", async () => {
    for (const sample of samples) {
      const result = await extractor.extract(sample, noContext);
      for (const key of keys(result)) {
        expect(STOPWORDS.has(key)).toBe(false);
        expect(key).not.toMatch(/^[\d\s.,%-]+$/);
        expect(key).not.toMatch(/https?:|www\.|\.com/);
      }
    }
  });

  test("a word inside a chosen phrase is not a separate concept unless it stands alone", async () => {
    const result = keys(await extractor.extract(loadNote("thinking-fast-and-slow.md"), noContext));
    expect(result).not.toContain("system");
    expect(result).not.toContain("aversion");
  });

  test("a corpus of one note still yields key phrases", async () => {
    const single = loadNote("sourdough-bread.md");
    const result = await createLocalExtractor(buildCorpusStats([single])).extract(single, noContext);
    expect(result.concepts.filter((concept) => concept.type === "concept").length).toBeGreaterThan(2);
    const empty = await createLocalExtractor(buildCorpusStats([])).extract(single, noContext);
    expect(keys(empty)).toContain("starter");
  });

  test("document frequencies count notes and keep only phrases shared by two or more", async () => {
    const notes = Array.from({ length: 20 }, (_, id) => note(`Quarterly planning. ${id === 0 ? "Kubernetes migration." : "Nothing else."}`, { id }));
    const corpus = await buildCorpusStats(notes);
    expect(corpus.documentCount).toBe(20);
    expect(corpus.documentFrequency.get("quarterly planning")).toBe(20);
    expect(corpus.documentFrequency.has("kubernetes migration")).toBe(false);
  });

  test("a phrase found in every note gives way to one specific to the note", async () => {
    const notes = Array.from({ length: 20 }, (_, id) =>
      note(`Quarterly planning matters. Quarterly planning again. ${id === 0 ? "Kubernetes migration first. Kubernetes migration later." : "Nothing else."}`, { id }),
    );
    const result = keys(await createLocalExtractor(buildCorpusStats(notes)).extract(notes[0]!, noContext));
    expect(result).toContain("kubernetes migration");
    expect(result).not.toContain("quarterly planning");
  });
});

describe("local extractor: mentions and descriptions", () => {
  test("every mention points at text containing the concept", async () => {
    const fold = (text: string) => conceptKey(text.replace(/_/g, " "));
    for (const sample of samples) {
      const text = noteText(sample);
      const result = await extractor.extract(sample, noContext);
      for (const concept of result.concepts) {
        expect(concept.mentions.length).toBeGreaterThanOrEqual(1);
        expect(concept.mentions.length).toBeLessThanOrEqual(20);
        for (const mention of concept.mentions) {
          const slice = text.slice(mention.start, mention.end);
          const atTitle = mention.start === 0 && mention.end === sample.title.length;
          if (concept.type === "tag" && atTitle) continue;
          const names = [concept.name, ...concept.aliases].map(fold);
          expect(names.some((name) => fold(slice).includes(name))).toBe(true);
        }
      }
    }
  });

  test("descriptions are a short sentence that mentions the concept", async () => {
    const result = await extractor.extract(loadNote("gradient-descent.md"), noContext);
    expect(find(result, "learning rate")?.description).toBe("The learning rate controls the step size.");
    for (const concept of result.concepts) {
      expect(concept.description.length).toBeLessThanOrEqual(160);
      expect(concept.description).not.toMatch(/\*\*|\[\[|`/);
    }
    expect(find(result, "Momentum")?.description).toStartWith("Momentum keeps an exponential moving average");
  });
});

describe("local extractor: relations", () => {
  const twoTopics = note(
    [
      "## Databases",
      "",
      "**PostgreSQL** and **SQLite** both speak SQL. PostgreSQL runs as a server.",
      "",
      "## Gardening",
      "",
      "**Tomatoes** need **compost** and full sun.",
    ].join("\n"),
  );

  test("concepts in one section are related; concepts in different sections are not", async () => {
    const result = await extractor.extract(twoTopics, noContext);
    expect(related(result, "PostgreSQL", "SQLite")).toBe(true);
    expect(related(result, "Tomatoes", "compost")).toBe(true);
    expect(related(result, "PostgreSQL", "Tomatoes")).toBe(false);
    expect(related(result, "SQLite", "compost")).toBe(false);
    expect(related(result, "Databases", "Gardening")).toBe(false);
  });

  test("a heading topic mentions the concepts under it, and spans cover the section", async () => {
    const result = await extractor.extract(twoTopics, noContext);
    const mention = result.relations.find((relation) => relation.source === "Databases" && relation.target === "PostgreSQL");
    expect(mention?.label).toBe("mentions");
    const section = noteText(twoTopics).slice(mention?.span?.start, mention?.span?.end);
    expect(section).toStartWith("## Databases");
    expect(section).toContain("PostgreSQL runs as a server.");
    expect(section).not.toContain("Gardening");
  });

  test("paragraphs are the sections of a note without headings", async () => {
    const result = await extractor.extract(note("**Rust** borrows from **OCaml**.\n\n**Sourdough** needs a **starter**."), noContext);
    expect(related(result, "Rust", "OCaml")).toBe(true);
    expect(related(result, "Sourdough", "starter")).toBe(true);
    expect(related(result, "Rust", "starter")).toBe(false);
  });

  test("a title topic mentions the headings and paragraphs of its note", async () => {
    const result = await extractor.extract(loadNote("gradient-descent.md"), noContext);
    expect(result.relations).toContainEqual(expect.objectContaining({ source: "Gradient descent", target: "Learning rate", label: "mentions" }));
  });

  test("a long paragraph pairs only its first concepts, keeps every reading neighbour, is capped and names known concepts", async () => {
    const many = Array.from({ length: 30 }, (_, index) => `**Widget${String.fromCharCode(65 + index)}**`).join(" and ");
    const result = await extractor.extract(note(many), noContext);
    const widgets = result.concepts.filter((concept) => concept.name.startsWith("Widget")).map((concept) => concept.name);
    expect(widgets.length).toBeGreaterThan(20);
    // Neighbours in the sentence (the stronger tie) all survive the cap; the clique stays bounded.
    for (let at = 1; at < widgets.length; at++) expect(related(result, widgets[at - 1]!, widgets[at]!)).toBe(true);
    expect(result.relations.length).toBeLessThan((widgets.length * (widgets.length - 1)) / 2);
    expect(result.relations.length).toBeLessThanOrEqual(MAX_RELATIONS);
    for (const sample of [...samples, note(many)]) {
      const extraction = await extractor.extract(sample, noContext);
      const names = new Set(extraction.concepts.map((concept) => concept.name));
      for (const relation of extraction.relations) {
        expect(names.has(relation.source) && names.has(relation.target)).toBe(true);
        expect(relation.source).not.toBe(relation.target);
      }
    }
  });
});

describe("local extractor: contract", () => {
  test("the same input gives identical output", async () => {
    const again = createLocalExtractor(buildCorpusStats(loadSampleNotes()));
    for (const sample of samples) expect(await again.extract(sample, noContext)).toEqual(await extractor.extract(sample, noContext));
  });

  test("concept keys are unique within a note", async () => {
    for (const sample of samples) {
      const found = keys(await extractor.extract(sample, noContext));
      expect(new Set(found).size).toBe(found.length);
      expect(found).not.toContain("");
    }
  });

  test("an empty note yields its tags and nothing else", async () => {
    const result = await extractor.extract({ id: 1, title: "", content: "", tags: ["inbox", "  ", "!!"] }, noContext);
    expect(result.concepts.map((concept) => [concept.name, concept.type])).toEqual([["inbox", "tag"]]);
    expect(result.relations).toEqual([]);
    expect(result.usage).toEqual({ llm_calls: 0, input_tokens: 0, output_tokens: 0 });
    const titleOnly = await extractor.extract({ id: 2, title: "Sourdough", content: "", tags: [] }, noContext);
    expect(titleOnly.concepts.map((concept) => concept.name)).toEqual(["Sourdough"]);
  });

  test("an aborted signal stops extraction", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(extractor.extract(samples[0]!, { existingConcepts: [], signal: controller.signal })).rejects.toThrow();
  });

  test("the extractor is named local", () => {
    expect(extractor.name).toBe("local");
  });
});
