import { describe, expect, test } from "bun:test";
import { parseQuery } from "../../../src/modules/search/parse-query";
import { InvalidInputError } from "../../../src/modules/errors";

describe("parseQuery", () => {
  test("words, phrases, exclusions and prefixes", () => {
    expect(parseQuery('Café "deep learning" -draft graph* -"old idea"')).toEqual([
      { tokens: ["cafe"], prefix: false, negated: false },
      { tokens: ["deep", "learning"], prefix: false, negated: false },
      { tokens: ["draft"], prefix: false, negated: true },
      { tokens: ["graph"], prefix: true, negated: false },
      { tokens: ["old", "idea"], prefix: false, negated: true },
    ]);
  });

  test("a CJK word is the phrase of its characters; mixed text stays one phrase", () => {
    expect(parseQuery("知识图谱 用Redis")).toEqual([
      { tokens: ["知", "识", "图", "谱"], prefix: false, negated: false },
      { tokens: ["用", "redis"], prefix: false, negated: false },
    ]);
  });

  test("FTS5 operators are plain words; an unclosed quote runs to the end", () => {
    expect(parseQuery('NEAR(a b) OR col:x ^y "open').map((term) => term.tokens)).toEqual([["near", "a"], ["b"], ["or"], ["col", "x"], ["y"], ["open"]]);
  });

  test("nothing searchable is an InvalidInputError", () => {
    expect(() => parseQuery('- * "" ^')).toThrow(InvalidInputError);
  });
});
