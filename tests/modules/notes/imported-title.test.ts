import { expect, test } from "bun:test";
import { MAX_TITLE_UNITS, importedTitle } from "../../../src/modules/notes/note-text";

test("whitespace runs become one space, the ends are trimmed", () => {
  expect(importedTitle("  Reading \n\t notes\r\n ")).toBe("Reading notes");
});

test("control and bidi-override characters are dropped", () => {
  expect(importedTitle("\u202eevil\u0007 title\u0000\u2066")).toBe("evil title");
});

test("a title is cut to 500 UTF-16 units", () => {
  expect(MAX_TITLE_UNITS).toBe(500);
  expect(importedTitle("a".repeat(501))).toBe("a".repeat(500));
  expect(importedTitle("中".repeat(600))).toHaveLength(500);
  expect(importedTitle("a".repeat(500))).toBe("a".repeat(500));
});

test("the cut never splits a surrogate pair", () => {
  const title = importedTitle(`${"a".repeat(499)}😀b`);
  expect(title).toBe("a".repeat(499));
  expect(importedTitle("😀".repeat(300))).toBe("😀".repeat(250));
});

test("nothing left is an empty string, for callers to fall back", () => {
  expect(importedTitle(" \u0007\n ")).toBe("");
});

test("a megabyte-long line is cut without cleaning all of it", () => {
  expect(importedTitle(`Title ${"x".repeat(1_000_000)}`)).toHaveLength(500);
});
