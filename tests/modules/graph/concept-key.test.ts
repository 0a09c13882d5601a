import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { conceptKey, displayLabel } from "../../../src/modules/graph/concept-key";

describe("conceptKey", () => {
  test("case, spacing, full-width forms and edge punctuation share one key", () => {
    const variants = [
      "Machine Learning",
      "machine   learning.",
      "ＭＡＣＨＩＮＥ learning",
      "#machine learning",
      "«Machine Learning»",
      "  machine\tlearning\n",
      "“machine learning”",
      "(machine learning)",
      "**machine learning**",
      "machine learning!?",
      "「machine learning」",
    ];
    for (const variant of variants) expect(conceptKey(variant)).toBe("machine learning");
  });

  test("CJK punctuation and full-width forms are folded", () => {
    for (const variant of ["机器学习", "「机器学习」", "《机器学习》", "机器学习。", "机器学习！", "，机器学习，", "【机器学习】", "#机器学习#"]) {
      expect(conceptKey(variant)).toBe("机器学习");
    }
    expect(conceptKey("ＡＩ")).toBe("ai");
    expect(conceptKey("机器　学习")).toBe("机器 学习");
    expect(conceptKey("ｶﾀｶﾅ")).toBe("カタカナ");
    expect(conceptKey("①")).toBe("1");
  });

  test("names made only of punctuation, symbols or emoji have no key", () => {
    for (const junk of ["", "   ", "!!!", "。。。", "——", "#", "「」", "《》，。！", "🚀", "❤️", "👨‍👩‍👧", "***", "\u200B", "\u0000\u0001"]) {
      expect(conceptKey(junk)).toBe("");
    }
  });

  test("case folding covers ß, final sigma and dotted capital I", () => {
    expect(conceptKey("Straße")).toBe(conceptKey("STRASSE"));
    expect(conceptKey("ΣΟΦΙΑΣ")).toBe(conceptKey("σοφιας"));
    expect(conceptKey("İstanbul")).toBe("istanbul");
    // Dotless ı is a different letter, as in Unicode's default (non-Turkish) folding.
    expect(conceptKey("ılık")).not.toBe(conceptKey("ilik"));
  });

  test("keeps inner punctuation and a +/# suffix glued to a word", () => {
    expect(conceptKey("Node.js")).toBe("node.js");
    expect(conceptKey("C++")).toBe("c++");
    expect(conceptKey("C#.")).toBe("c#");
    expect(conceptKey("F#")).toBe("f#");
    expect(conceptKey("#rust#")).toBe("rust");
    expect(conceptKey("machine-learning")).not.toBe(conceptKey("machine learning"));
    expect(conceptKey("尤瓦尔·赫拉利")).toBe("尤瓦尔·赫拉利");
  });

  test("control and invisible characters neither split nor spoof a key", () => {
    expect(conceptKey("machine\u0000learning")).toBe("machine learning");
    expect(conceptKey("ma\u200Bchine learning")).toBe("machine learning");
    expect(conceptKey("\u202Emachine learning\u202C")).toBe("machine learning");
    expect(conceptKey("\uFEFFmachine learning")).toBe("machine learning");
    expect(conceptKey("machine\u00ADlearning")).toBe("machinelearning");
  });

  test("emoji inside a name and right-to-left scripts are kept", () => {
    expect(conceptKey("I ❤️ NY")).toBe("i ❤️ ny");
    expect(conceptKey("🚀 Rocket science")).toBe("rocket science");
    expect(conceptKey("«الذكاء الاصطناعي»")).toBe("الذكاء الاصطناعي");
    expect(conceptKey("״שלום״")).toBe("שלום");
  });

  test("hostile input: long strings and long punctuation runs are handled", () => {
    expect(conceptKey(`${"!".repeat(500_000)}a${"!".repeat(500_000)}`)).toBe("a");
    expect(conceptKey("a ".repeat(500_000))).toHaveLength(999_999);
    expect(conceptKey(`${"x!".repeat(300_000)}`)).toHaveLength(599_999);
    expect(conceptKey("\uD800 lone \uDC00")).toBe("\uD800 lone \uDC00".normalize("NFKC").trim());
  });

  test("is idempotent and never has surrounding whitespace", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (name) => {
        const key = conceptKey(name);
        expect(conceptKey(key)).toBe(key);
        expect(key).toBe(key.trim());
      }),
      { numRuns: 300 },
    );
  });
});

describe("displayLabel", () => {
  test("keeps case and compatibility forms (NFKC is for keys), composes and collapses whitespace", () => {
    expect(displayLabel("  ＭＡＣＨＩＮＥ   Learning \n")).toBe("ＭＡＣＨＩＮＥ Learning");
    expect(displayLabel("卡尼曼（Daniel Kahneman）：")).toBe("卡尼曼（Daniel Kahneman）：");
    expect(displayLabel("Machine\u0000Learning")).toBe("Machine Learning");
    expect(displayLabel("«Machine Learning»")).toBe("«Machine Learning»");
    expect(displayLabel("e\u200B\u0301")).toBe("é");
  });

  test("is idempotent", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (name) => {
        expect(displayLabel(displayLabel(name))).toBe(displayLabel(name));
      }),
      { numRuns: 300 },
    );
  });
});
