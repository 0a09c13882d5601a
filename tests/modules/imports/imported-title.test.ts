import { expect, test } from "bun:test";
import { cutImportedTitle, MAX_IMPORTED_TITLE_UNITS } from "../../../src/modules/imports/imported-title";

test("whitespace runs become one space, the ends are trimmed", () => {
  expect(cutImportedTitle("  Reading \n\t notes\r\n ")).toBe("Reading notes");
});

test("control and bidi-override characters are dropped", () => {
  expect(cutImportedTitle("\u202eevil\u0007 title\u0000\u2066")).toBe("evil title");
});

test("a title is cut to 500 UTF-16 units", () => {
  expect(MAX_IMPORTED_TITLE_UNITS).toBe(500);
  expect(cutImportedTitle("a".repeat(501))).toBe("a".repeat(500));
  expect(cutImportedTitle("中".repeat(600))).toHaveLength(500);
  expect(cutImportedTitle("a".repeat(500))).toBe("a".repeat(500));
});

test("the cut never splits a surrogate pair", () => {
  const title = cutImportedTitle(`${"a".repeat(499)}😀b`);
  expect(title).toBe("a".repeat(499));
  expect(cutImportedTitle("😀".repeat(300))).toBe("😀".repeat(250));
});

test("nothing left is an empty string, for callers to fall back", () => {
  expect(cutImportedTitle(" \u0007\n ")).toBe("");
});

test("a megabyte-long line is cut without cleaning all of it", () => {
  expect(cutImportedTitle(`Title ${"x".repeat(1_000_000)}`)).toHaveLength(500);
});
