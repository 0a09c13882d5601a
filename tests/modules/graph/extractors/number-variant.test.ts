import { expect, test } from "bun:test";
import { numberVariant } from "../../../../src/modules/graph/extractors/local/aliases";

test("the other grammatical number of an English name, irregular -ses plurals included", () => {
  const pairs: [string, string][] = [
    ["vector database", "vector databases"],
    ["cognitive bias", "cognitive biases"],
    ["alias", "aliases"],
    ["lens", "lenses"],
    ["status", "statuses"],
    ["case", "cases"],
    ["query", "queries"],
    ["sandwich", "sandwiches"],
    ["LLM", "LLMs"],
  ];
  for (const [singular, plural] of pairs) {
    expect(numberVariant(singular)).toBe(plural);
    expect(numberVariant(plural)).toBe(singular);
  }
  // Names have no plural.
  expect(numberVariant("Kahneman")).toBeUndefined();
  expect(numberVariant("知识图谱")).toBeUndefined();
});
