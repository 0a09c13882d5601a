import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { dump } from "js-yaml";
import { exportFrontMatter } from "../../../src/modules/notes/export-front-matter";
import type { NoteSource } from "../../../src/modules/notes/schemas";

/** What the export wrote before the shortcuts: one js-yaml dump of the whole mapping. */
function jsYamlFrontMatter(note: { id: number; title: string; tags: string[]; createdAt: number; updatedAt: number }, source: NoteSource): string {
  return dump(
    {
      id: note.id,
      title: note.title,
      tags: note.tags,
      created_at: new Date(note.createdAt).toISOString(),
      updated_at: new Date(note.updatedAt).toISOString(),
      ...(source && { source_platform: source.platform, source_url: source.url, author: source.author, published_at: source.published_at }),
    },
    { noRefs: true, lineWidth: -1 },
  );
}

// Characters that change how YAML reads a scalar, around ordinary letters and digits.
const tricky = fc.constantFrom(..."aZ09 -:#,[]{}&*!|>'\"%@`?()._/+=~\\\t\n\u2028\u0085é机🚀");
const title = fc.oneof(
  fc.string({ unit: tricky, maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.constantFrom("yes", "No", "OFF", "y", "n", "null", "Null", "true", "False", "on", "~", "123", "1.5", "0x1F", ".inf", "2026-11-21", "12:30", "a: b", "a #b", "a#b", "Title (12)", "System **fast** memory (3)",
    "**Bold** opening (4)", "*", "'quoted' it's", "- list item", "-1:30", "# heading", "  indented", "@handle", "`code` first", "? why", "[link](x)",
    "ideas", "code", "a", "e", "E1", "Yes", "YES", "yEs", "nO", "ON", "On", "oN", "TRUE", "tRUE", "NULL", "nULL", "NaN", "Inf", "Y", "N", "x"),
);

describe("an exported note's front matter", () => {
  test("is byte for byte what js-yaml writes for the whole mapping, whatever the title, tags, dates and source", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 40 }),
        title,
        fc.array(title, { maxLength: 4 }),
        fc.integer({ min: -62_167_219_200_000 - 10 ** 11, max: 253_402_300_799_999 + 10 ** 11 }),
        fc.option(fc.record({ platform: fc.constantFrom("web", "wechat"), url: fc.option(fc.webUrl()), author: fc.option(title), published_at: fc.option(fc.constant("2026-01-02T03:04:05.000Z")) }), { nil: null }),
        (id, noteTitle, tags, time, source) => {
          const note = { id, title: noteTitle, tags, createdAt: time, updatedAt: time + 1000 };
          expect(exportFrontMatter({ ...note, tags: JSON.stringify(tags) }, source)).toBe(jsYamlFrontMatter(note, source));
        },
      ),
      { numRuns: 5000 },
    );
  });
});
