import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { MAX_PASSAGE_UNITS, splitPassages } from "../../../src/modules/ask/passages";
import { questionTerms } from "../../../src/modules/ask/question-terms";

describe("splitPassages", () => {
  test("paragraphs are passages; a short lead-in or heading joins the paragraph after it", () => {
    const content = "# Sourdough\n\nMix flour and water, then rest an hour before adding the starter and the salt.\n\n\nBake at 250 °C in a Dutch oven until the crust is dark.\n";
    const texts = splitPassages(content).map(({ start, end }) => content.slice(start, end));
    expect(texts).toEqual([
      "# Sourdough\n\nMix flour and water, then rest an hour before adding the starter and the salt.",
      "Bake at 250 °C in a Dutch oven until the crust is dark.",
    ]);
  });

  test("a long paragraph becomes windows of whole sentences, English and Chinese", () => {
    const english = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} says something worth reading.`).join(" ");
    const chinese = "这是一句很长的中文句子，用来测试切分。".repeat(80);
    for (const content of [english, chinese]) {
      const passages = splitPassages(content);
      expect(passages.length).toBeGreaterThan(1);
      for (const { start, end } of passages) {
        expect(end - start).toBeLessThanOrEqual(MAX_PASSAGE_UNITS);
        expect(content.slice(start, end)).toMatch(/[.。]$/);
      }
    }
  });

  test("any text: passages are in order, non-overlapping, trimmed, at most the limit, never splitting a surrogate pair", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", " ", "\n", "。", ".", "😀", "字", "#", ":"), maxLength: 3000 }), (content) => {
        let last = 0;
        for (const { start, end } of splitPassages(content)) {
          expect(start).toBeGreaterThanOrEqual(last);
          expect(end).toBeGreaterThan(start);
          expect(end - start).toBeLessThanOrEqual(MAX_PASSAGE_UNITS);
          const text = content.slice(start, end);
          expect(text).toBe(text.trim());
          expect(/^[\uDC00-\uDFFF]/.test(text) || /[\uD800-\uDBFF]$/.test(text)).toBe(false);
          last = end;
        }
      }),
    );
  });
});

describe("questionTerms", () => {
  test("English: stopwords and question words go; a plural finds its singular", () => {
    expect(questionTerms("What does Kahneman say about the pancakes?")).toEqual([
      { token: "kahneman", prefix: false },
      { token: "pancake", prefix: true },
    ]);
  });

  test("Chinese: the run's bigrams, without those holding a function character", () => {
    expect(questionTerms("卡尼曼说的锚定效应是什么？").map((term) => term.token)).toEqual(["卡尼", "尼曼", "锚定", "定效", "效应"]);
  });

  test("search syntax is just text", () => {
    expect(questionTerms('NEAR("anchoring" loss*) -bias').map((term) => term.token)).toEqual(["near", "anchoring", "loss", "bias"]);
  });
});
