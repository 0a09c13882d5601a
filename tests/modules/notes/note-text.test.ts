import { describe, expect, test } from "bun:test";
import { seededRandom } from "../../../src/modules/graph/seeded-random";
import { cutToUnits, importedTags, importedText, importedTitle, normaliseLine } from "../../../src/modules/notes/note-text";
import { tagsSchema, titleSchema } from "../../../src/modules/notes/schemas";

// Pieces a hostile page may hold: controls, Unicode spaces and line separators, emoji, a lone surrogate.
const PIECES = ["a", "中", " ", "\t", "\n", "\r", "\u0000", "\u0007", "\u007f", "\u00a0", "\u2028", "\u3000", "\ufeff", "\u0085", "🚀", "👩‍💻", "\ud800", "#"];

function hostileString(random: () => number, maxPieces: number): string {
  let text = "";
  for (let i = Math.floor(random() * maxPieces); i > 0; i--) text += PIECES[Math.floor(random() * PIECES.length)];
  return text;
}

describe("the notes' title and tag rules", () => {
  test("tab, LF and CR become spaces, other C0 controls and DEL go, then the value is trimmed", () => {
    expect(normaliseLine("\u0001\tA\r\nb\u0000c\u007f \u0085")).toBe("A  bc \u0085");
  });

  test("a cut never splits a surrogate pair", () => {
    expect(cutToUnits("ab🚀", 3)).toBe("ab");
    expect(cutToUnits("ab🚀", 4)).toBe("ab🚀");
    expect(cutToUnits("abc", 5)).toBe("abc");
  });

  test("imported titles and tags are what POST and PUT accept, unchanged", () => {
    const random = seededRandom(20261124);
    for (let round = 0; round < 2000; round++) {
      const title = importedTitle(hostileString(random, 700), "Untitled import");
      expect(titleSchema.parse(title)).toBe(title);
      expect(title.length).toBeLessThanOrEqual(500);
      const tags = importedTags(Array.from({ length: Math.floor(random() * 50) }, () => hostileString(random, 70)));
      expect(tagsSchema.parse(tags)).toEqual(tags);
    }
  });

  test("an author is one normalised line, or null", () => {
    expect(importedText(" \tMaya\n Lindqvist\u0007")).toBe("Maya Lindqvist");
    expect(importedText("\u0001 ")).toBeNull();
    expect(importedText(undefined)).toBeNull();
  });
});
