import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { MAX_PASSAGE_UNITS, splitPassages } from "../../../src/modules/ask/passages";
import { questionTerms } from "../../../src/modules/ask/question-terms";
import { passagePlaces } from "../../../src/modules/ask/passage-place";

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

describe("where a passage sits in an imported document", () => {
  const content = [
    "Intro before any page.",
    "[p. iii]",
    "Short.",
    "[p. 1]",
    "![Page 1](/api/files/4)",
    "[p. 2]",
    "The second page holds a paragraph long enough to answer from, about the harvest of rice in the autumn.",
    "## Text in pictures",
    "[picture 1](/api/files/4) Words read from the scan.",
    "[picture 2](/api/files/9) More words.",
  ].join("\n\n");

  test("a page's or a picture's marker starts a passage of its own: no passage runs across pages", () => {
    const texts = splitPassages(content).map((span) => content.slice(span.start, span.end));
    expect(texts.filter((text) => /\[p\. /.test(text)).every((text) => text.startsWith("[p. ") && text.match(/\[p\. /g)!.length === 1)).toBe(true);
    expect(texts.filter((text) => text.includes("[picture ")).every((text) => text.startsWith("[picture ") && text.match(/\[picture /g)!.length === 1)).toBe(true);
  });

  test("page and picture are the nearest markers at or before the passage's start, else null", () => {
    const at = passagePlaces(content);
    expect(at(0)).toEqual({ page: null, picture: null });
    expect(at(content.indexOf("[p. iii]"))).toEqual({ page: "iii", picture: null });
    expect(at(content.indexOf("Short."))).toEqual({ page: "iii", picture: null });
    expect(at(content.indexOf("The second page"))).toEqual({ page: 2, picture: null });
    expect(at(content.indexOf("More words."))).toEqual({ page: 2, picture: 2 });
  });
});
