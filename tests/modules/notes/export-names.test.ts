import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { exportEntryName, exportFileName, slugForTitle } from "../../../src/modules/notes/export-names";

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i;

/** The slug's rules step by step, as they were first written; the one-pass slug must agree. */
function slugStepByStep(title: string): string {
  const slug = title
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}/\\?<>:*|"'`#%&{}$!@+=^~;,[\]()]+/gu, " ")
    .trim()
    .replace(/\s+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[.\-]+|[.\-]+$/g, "");
  let bytes = 0;
  let out = "";
  for (const char of slug) {
    bytes += Buffer.byteLength(char, "utf8");
    if (bytes > 120) break;
    out += char;
  }
  return out.replace(/[.\-]+$/g, "") || "note";
}

/** Titles from the characters the rules treat specially, and any others. */
const hostileTitle = fc.oneof(
  fc.string({ unit: fc.constantFrom(..." \t\n\u00a0\u2028\u200b\u3000-.-/\\?<>:*|\"'`#%&{}$!@+=^~;,[]()aZé知🚀\u0000\u007f\uff21"), maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 200 }),
);

describe("export entry names", () => {
  test("any title gives a safe, relative, id-suffixed name", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 600 }), fc.integer({ min: 1, max: 2 ** 40 }), (title, id) => {
        const name = exportEntryName({ id, title });
        expect(name.endsWith(`-${id}.md`)).toBe(true);
        expect(name).not.toMatch(/[/\\\u0000-\u001f\u007f:*?"<>|]/);
        expect(name.startsWith(".")).toBe(false);
        expect(name.split(/[\\/]/)).toEqual([name]);
        expect(Buffer.byteLength(name, "utf8")).toBeLessThanOrEqual(255);
        expect(WINDOWS_RESERVED.test(name)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  test("the slug follows its rules step by step, for any title", () => {
    fc.assert(
      fc.property(hostileTitle, (title) => {
        expect(slugForTitle(title)).toBe(slugStepByStep(title));
      }),
      { numRuns: 20_000 },
    );
  });

  test.each([
    ["../../etc/passwd", "etc-passwd"],
    ["a\\b", "a-b"],
    ["CON", "con"],
    ["  ...hidden  ", "hidden"],
    ["Hello, World!", "hello-world"],
    ["机器学习 入门", "机器学习-入门"],
    ["🚀 Launch", "🚀-launch"],
    ["???", "note"],
    ["", "note"],
  ])("slug of %j is %j", (title, slug) => {
    expect(slugForTitle(title)).toBe(slug);
  });

  test("the archive is named after the UTC date", () => {
    expect(exportFileName(new Date("2026-11-21T23:59:59Z"))).toBe("notes-20261121.zip");
  });
});
