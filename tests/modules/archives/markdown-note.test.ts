import { describe, expect, test } from "bun:test";
import { decodeEntryName, isHiddenEntry, unsafeNameReason } from "../../../src/modules/archives/entry-name";
import { markdownNote } from "../../../src/modules/archives/markdown-note";
import { splitFrontMatter } from "../../../src/modules/archives/front-matter";

describe("markdownNote", () => {
  test("front matter stays strings under the failsafe schema, and is not left in the content", () => {
    const { data, body } = splitFrontMatter("---\ncreated: 2024-01-05\ncount: 12\nflag: yes\n---\nBody");
    expect(data).toEqual({ created: "2024-01-05", count: "12", flag: "yes" });
    expect(body).toBe("Body");
  });

  test("a `!!js/function` tag or broken YAML is not evaluated: the file is read as plain Markdown", () => {
    const note = markdownNote("x.md", "---\ntitle: !!js/function 'function(){}'\n---\nBody");
    expect(note.title).toBe("x");
    expect(note.content).toContain("Body");
  });

  test("title: front matter, else the first heading (not one inside code), else the file name without .md", () => {
    expect(markdownNote("a/b.md", "---\ntitle: \"  Front\\tmatter \"\n---\n# Heading").title).toBe("Front matter");
    expect(markdownNote("a/b.md", "```\n# not this\n```\n\n# This one #tag\n").title).toBe("This one #tag");
    expect(markdownNote("a/My note.markdown", "text").title).toBe("My note");
  });

  test("tags: front matter lists and strings, inline and nested #tags; punctuation, numbers, code and headings are not tags; aliases are not tags", () => {
    const note = markdownNote(
      "t.md",
      "---\ntags: [\"#one\", two]\ntag: three, four\naliases: [nope]\n---\n# Heading\nSee #area/topic, #five. And (#six) 中文#不是 #123 `#code` #seven/\n",
    );
    expect(note.tags).toEqual(["one", "two", "three", "four", "area/topic", "five", "six", "seven"]);
  });

  test("created, created_at or date: a date alone is midnight UTC; a note without one has none", () => {
    expect(markdownNote("d.md", "---\ndate: 2023-12-31\n---\nx").createdAt).toBe(Date.UTC(2023, 11, 31));
    expect(markdownNote("d.md", "---\ncreated_at: 2024-02-01T08:30:00+08:00\n---\nx").createdAt).toBe(Date.UTC(2024, 1, 1, 0, 30));
    expect(markdownNote("d.md", "---\ncreated: someday\n---\nx").createdAt).toBeNull();
  });
});

describe("entry names", () => {
  test("GBK names without the UTF-8 flag are decoded; flagged or valid UTF-8 names are read as UTF-8", () => {
    expect(decodeEntryName(new Uint8Array([0xd6, 0xd0, 0xce, 0xc4, 0x2e, 0x6d, 0x64]), false)).toBe("中文.md");
    expect(decodeEntryName(new TextEncoder().encode("中文.md"), false)).toBe("中文.md");
    expect(decodeEntryName(new TextEncoder().encode("中文.md"), true)).toBe("中文.md");
  });

  test("absolute names, drive letters and `..` are refused; dot-files and __MACOSX are hidden", () => {
    for (const name of ["/etc/passwd", "C:/x.md", "a/../../x.md", "a\\..\\x.md"]) expect(unsafeNameReason(name)).not.toBeNull();
    expect(unsafeNameReason("a/b..c.md")).toBeNull();
    expect(isHiddenEntry(".obsidian/app.json")).toBe(true);
    expect(isHiddenEntry("notes/.DS_Store")).toBe(true);
    expect(isHiddenEntry("__MACOSX/._a.md")).toBe(true);
    expect(isHiddenEntry("notes/a.md")).toBe(false);
  });
});
