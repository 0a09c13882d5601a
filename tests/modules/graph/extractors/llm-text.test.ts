import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { splitIntoChunks, truncateText } from "../../../../src/modules/llm/chunk-text";
import { TextLocator } from "../../../../src/modules/graph/extractors/llm/locate";
import { buildUserMessage, chooseExistingConcepts } from "../../../../src/modules/graph/extractors/llm/prompt";
import { knowledgeGraphSchema, LIMITS } from "../../../../src/modules/graph/extractors/llm/schema";

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

describe("splitIntoChunks", () => {
  test("a short text is one chunk", () => {
    expect(splitIntoChunks("short", 100)).toEqual([{ start: 0, text: "short" }]);
  });

  test("cuts before a heading rather than inside a paragraph", () => {
    const text = `${"a".repeat(60)}\n\n## Next\n\n${"b".repeat(60)}`;
    const chunks = splitIntoChunks(text, 100);
    expect(chunks[1]!.text.startsWith("## Next")).toBe(true);
  });

  test("chunks cover the text in order, fit the limit and never split a surrogate pair", () => {
    const piece = fc.constantFrom("word ", "😀", "𝕏y", "\n\n", "# H\n", "。", "ab", "\n");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 400 }), fc.integer({ min: 50, max: 300 }), (pieces, max) => {
        const text = pieces.join("");
        const chunks = splitIntoChunks(text, max);
        expect(chunks.map((chunk) => chunk.text).join("")).toBe(text);
        let offset = 0;
        for (const chunk of chunks) {
          expect(chunk.start).toBe(offset);
          expect(chunk.text.length).toBeLessThanOrEqual(max);
          if (chunk.text.length > 0) expect(isLowSurrogate(chunk.text.charCodeAt(0))).toBe(false);
          offset += chunk.text.length;
        }
      }),
    );
  });

  test("truncateText keeps whole code points", () => {
    expect(truncateText("ab😀", 3)).toBe("ab");
  });
});

describe("TextLocator", () => {
  const text = "Intro.\nWe met “Grace   Hopper” at the Navy;\nGRACE HOPPER later built compilers. Go and Google.";
  const locator = new TextLocator(text);

  test("finds a quote exactly, then ignoring case, then ignoring whitespace and typography", () => {
    expect(locator.findQuote("met “Grace")).toEqual({ start: 10, end: 20 });
    const caseless = locator.findQuote("grace hopper later")!;
    expect(text.slice(caseless.start, caseless.end)).toBe("GRACE HOPPER later");
    const loose = locator.findQuote('met "Grace Hopper" at')!;
    expect(text.slice(loose.start, loose.end)).toBe("met “Grace   Hopper” at");
    expect(locator.findQuote("not there")).toBeUndefined();
  });

  test("finds names as whole words only", () => {
    const spans = locator.findName("Go", 10);
    expect(spans.map((span) => text.slice(span.start, span.end))).toEqual(["Go"]);
    const hoppers = locator.findName("grace hopper", 10).map((span) => text.slice(span.start, span.end));
    expect(hoppers).toEqual(["Grace   Hopper", "GRACE HOPPER"]);
  });

  test("any position is a word boundary in scripts written without spaces", () => {
    const chinese = new TextLocator("我们讨论了知识图谱的构建。");
    const [span] = chinese.findName("知识图谱", 5);
    expect(span).toEqual({ start: 5, end: 9 });
  });
});

describe("knowledgeGraphSchema", () => {
  test("cuts over-long text and maps unknown types to other instead of failing the note", () => {
    const parsed = knowledgeGraphSchema.parse({
      concepts: [{ name: " Rust ", type: "Programming Language", description: "x".repeat(500), aliases: ["", "rust-lang"], evidence: "Rust" }],
    });
    const [concept] = parsed.concepts;
    expect(concept!.name).toBe("Rust");
    expect(concept!.type).toBe("other");
    expect(concept!.description).toHaveLength(LIMITS.description);
    expect(concept!.aliases).toEqual(["rust-lang"]);
    expect(parsed.relations).toEqual([]);
  });

  test("rejects answers with a broken structure", () => {
    expect(knowledgeGraphSchema.safeParse({ concepts: "none" }).success).toBe(false);
    expect(knowledgeGraphSchema.safeParse({ concepts: [{ name: "" }] }).success).toBe(false);
    expect(knowledgeGraphSchema.safeParse({ concepts: [], relations: [{ source: "a" }] }).success).toBe(false);
  });
});

describe("prompt", () => {
  test("existing names: the note's own first, then the rest, within 200 names and ~4 KB", () => {
    const names = [...Array.from({ length: 300 }, (_, index) => `Name ${index}`), "Rust", "rust"];
    const chosen = chooseExistingConcepts(names, "I like Rust.", ["WebAssembly"]);
    expect(chosen.slice(0, 2)).toEqual(["WebAssembly", "Rust"]);
    expect(chosen.filter((name) => name.toLowerCase() === "rust")).toHaveLength(1);
    expect(chosen.length).toBeLessThanOrEqual(200);
  });

  test("the delimiter suffix is deterministic and cannot be closed from inside the note", () => {
    const input = { title: "T", tags: [], chunkText: "x </note_text_> y", part: { index: 0, count: 1 }, existingConcepts: [] };
    const message = buildUserMessage(input);
    expect(buildUserMessage(input)).toBe(message);
    const suffix = /<note_text_([0-9a-f]+)>/.exec(message)![1]!;
    expect(input.chunkText).not.toContain(suffix);
  });
});
