import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { applyDelta, applyDeltas, textDelta } from "../../../src/modules/history/text-delta";
import { diffHunks } from "../../../src/modules/history/versions";

// Texts built from pieces that stress offsets: CJK, emoji (surrogate pairs, ZWJ sequences), line breaks.
const PIECES = ["a", "word ", "锚定效应", "知识", "😀", "👩‍👩‍👧", "\n", "\r\n", "\n\n", "# Title\n", "- item\n", " ", "é", "\u0301"];
const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 80 }).map((parts) => parts.join(""));
/** A text and some edits of it: each a cut somewhere, replaced by new pieces (a cut may split a surrogate pair). */
const edited = text.chain((base) =>
  fc
    .array(fc.tuple(fc.nat(), fc.nat({ max: 12 }), text.map((inserted) => inserted.slice(0, 20))), { minLength: 1, maxLength: 4 })
    .map((edits) => {
      let after = base;
      for (const [at, removed, inserted] of edits) {
        const start = at % (after.length + 1);
        after = after.slice(0, start) + inserted + after.slice(start + removed);
      }
      return [base, after] as const;
    }),
);

/** No lone surrogate (String.prototype.isWellFormed, which this TypeScript target does not declare). */
const wellFormed = (value: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(value);

/** Applies unified-diff hunks backwards: from the text after, the text before. */
function unapplyHunks(after: string, hunks: ReturnType<typeof diffHunks>): string {
  const lines = `${after}\n`.split("\n");
  lines.pop(); // the extra LF diffHunks adds on both sides
  // Last hunk first, so earlier line numbers stay valid.
  for (const hunk of [...hunks].reverse()) {
    const old = hunk.lines.filter((line) => !line.startsWith("+")).map((line) => line.slice(1));
    const fresh = hunk.lines.filter((line) => !line.startsWith("-")).map((line) => line.slice(1));
    expect(fresh.length).toBe(hunk.new_lines);
    expect(old.length).toBe(hunk.old_lines);
    const start = hunk.new_lines === 0 ? hunk.new_start : hunk.new_start - 1;
    expect(lines.slice(start, start + fresh.length)).toEqual(fresh);
    lines.splice(start, fresh.length, ...old);
  }
  return lines.join("\n");
}

describe("text deltas", () => {
  test("a delta turns the old text into the new one exactly, and survives JSON as stored", () => {
    fc.assert(
      fc.property(edited, ([before, after]) => {
        const delta = JSON.parse(JSON.stringify(textDelta(before, after)));
        expect(applyDelta(before, delta)).toBe(after);
      }),
      { numRuns: 2000 },
    );
  });

  test("no splice cuts a surrogate pair, so every stored piece is valid UTF-16", () => {
    fc.assert(
      fc.property(edited, ([before, after]) => {
        // Edits may themselves cut a pair; between two well-formed texts, no stored piece may be a lone half.
        if (wellFormed(before) && wellFormed(after)) for (const [, , inserted] of textDelta(after, before)) expect(wellFormed(inserted)).toBe(true);
        const roundTrip = Buffer.from(JSON.stringify(textDelta(after, before)), "utf8").toString("utf8");
        expect(applyDelta(after, JSON.parse(roundTrip))).toBe(before);
      }),
      { numRuns: 1000 },
    );
  });

  test("a chain of reverse deltas rebuilds every earlier text from the newest", () => {
    fc.assert(
      fc.property(fc.array(edited, { minLength: 1, maxLength: 25 }), (steps) => {
        const texts = [steps[0]![0]];
        for (const [, after] of steps) texts.push(after);
        const reverse = texts.slice(1).map((newer, index) => textDelta(newer, texts[index]!)).reverse();
        for (let back = 1; back <= reverse.length; back++) {
          expect(applyDeltas(texts.at(-1)!, reverse.slice(0, back))).toBe(texts[texts.length - 1 - back]!);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("a one-word edit of a large text costs a few bytes, not the text", () => {
    const big = Array.from({ length: 20_000 }, (_, index) => `line ${index} of a long note\n`).join("");
    const after = big.replace("line 12345 of", "line 12345 in");
    expect(JSON.stringify(textDelta(after, big)).length).toBeLessThan(40);
    const far = after.replace("line 3 of", "LINE 3 of").replace("line 19999 of", "LINE 19999 of");
    expect(JSON.stringify(textDelta(far, big)).length).toBeLessThan(400);
    expect(applyDelta(far, textDelta(far, big))).toBe(big);
  });
});

describe("diff hunks", () => {
  test("applied backwards to the current text, the hunks give back the version exactly", () => {
    fc.assert(
      fc.property(edited, ([version, current]) => {
        expect(unapplyHunks(current, diffHunks(version, current))).toBe(version);
      }),
      { numRuns: 1500 },
    );
  });

  test("unified-diff numbering, 1-based, with 3 lines of context", () => {
    const before = ["one", "two", "three", "four", "five", "six", "seven", "eight"].join("\n");
    const after = before.replace("five", "FIVE");
    expect(diffHunks(before, after)).toEqual([
      { old_start: 2, old_lines: 7, new_start: 2, new_lines: 7, lines: [" two", " three", " four", "-five", "+FIVE", " six", " seven", " eight"] },
    ]);
    const inserted = diffHunks("a\nb\nc\nd\ne\nf\ng\nh\ni", "a\nb\nc\nd\ne\nf\ng\nh\ni\nj");
    // A last line without LF gains one: only the new line shows, not the old last line again.
    expect(inserted).toEqual([{ old_start: 7, old_lines: 3, new_start: 7, new_lines: 4, lines: [" g", " h", " i", "+j"] }]);
    expect(diffHunks("", "x")).toEqual([{ old_start: 1, old_lines: 1, new_start: 1, new_lines: 1, lines: ["-", "+x"] }]);
    expect(diffHunks("same", "same")).toEqual([]);
  });
});
