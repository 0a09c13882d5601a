import { describe, expect, test } from "bun:test";
import { escapeLine, notePictures, withPictureTexts, type PictureText } from "../../../src/modules/ocr/picture-section";
import { markdownPlainText } from "../../../src/text/markdown-text";

const note = ["# Trip", "", "Intro ![a](/api/files/7) and ![b](/api/files/9 \"title\")", "", "```", "![code](/api/files/11)", "```", "", "![a again](/api/files/7)", "", "[original](/api/files/12)", ""].join("\n");

describe("the pictures of a note", () => {
  test("are its stored images in order, each file once, not links nor code", () => {
    expect(notePictures(note)).toEqual([
      { fileId: 7, position: 1, page: false },
      { fileId: 9, position: 2, page: false },
    ]);
  });

  test("a picture alone on the line after [p. N] is a page", () => {
    const pdf = "[p. 1]\n\nSome text.\n\n[p. ii]\n\n![Page ii](/api/files/3)\n\n[p. 3]\n![Page 3](/api/files/4)\n";
    expect(notePictures(pdf)).toEqual([
      { fileId: 3, position: 1, page: true },
      { fileId: 4, position: 2, page: true },
    ]);
  });
});

describe("writing the pictures' text into the note", () => {
  const [first, second] = notePictures(note) as [NonNullable<ReturnType<typeof notePictures>[0]>, NonNullable<ReturnType<typeof notePictures>[0]>];
  const texts: PictureText[] = [
    { picture: second, lines: ["第二张图片的文字", "Second line"] },
    { picture: first, lines: ["Hello *world* [x](y)", "# not a heading", "1. not a list"] },
  ];

  test("adds `## Text in pictures` at the end, a paragraph a picture beginning with its link", () => {
    const written = withPictureTexts(note, texts);
    expect(written.startsWith(note.trimEnd())).toBe(true);
    expect(written.slice(note.trimEnd().length)).toBe(
      "\n\n## Text in pictures\n\n" +
        "[picture 1](/api/files/7) Hello \\*world\\* \\[x\\](y)\n\\# not a heading\n1\\. not a list\n\n" +
        "[picture 2](/api/files/9) 第二张图片的文字\nSecond line\n",
    );
    // Read back as plain text (search's view), the characters are there as read.
    const plain = (text: string) => markdownPlainText(text).replace(/\s+/g, "");
    expect(plain(written)).toContain("Hello*world*[x](y)#notaheading1.notalist");
  });

  test("a second run rewrites the section instead of adding another", () => {
    const once = withPictureTexts(note, texts);
    expect(withPictureTexts(once, texts)).toBe(once);
    const changed = withPictureTexts(once + "\nA line the person added after it.\n", [texts[1]!]);
    expect(changed.match(/## Text in pictures/g)).toHaveLength(1);
    expect(changed).not.toContain("第二张");
    // The section runs to the next heading: what follows one stays.
    const withAfter = once.replace("## Text in pictures", "## Text in pictures").concat("\n## Later\n\nKept.\n");
    expect(withPictureTexts(withAfter, texts)).toBe(withAfter);
  });

  test("pictures with fewer than 4 characters get no paragraph, and no text at all no section", () => {
    const written = withPictureTexts(note, [{ picture: first, lines: ["a b", "c"] }, { picture: second, lines: [] }]);
    expect(written).toBe(note);
    expect(withPictureTexts(withPictureTexts(note, texts), [])).toBe(note);
  });

  test("a page's text goes right after its picture, once", () => {
    const pdf = "# Scan\n\n[p. 1]\n\n![Page 1](/api/files/3)\n\n[p. 2]\n\n![Page 2](/api/files/4)\n\n[original](/api/files/5)\n";
    const [page1, page2] = notePictures(pdf) as [NonNullable<ReturnType<typeof notePictures>[0]>, NonNullable<ReturnType<typeof notePictures>[0]>];
    const written = withPictureTexts(pdf, [
      { picture: page1, lines: ["第一页的文字", "Page one"] },
      { picture: page2, lines: ["Page two text"] },
    ]);
    expect(written).toBe("# Scan\n\n[p. 1]\n\n![Page 1](/api/files/3)\n\n第一页的文字\nPage one\n\n[p. 2]\n\n![Page 2](/api/files/4)\n\nPage two text\n\n[original](/api/files/5)\n");
    expect(written).not.toContain("Text in pictures");
    expect(withPictureTexts(written, [{ picture: page1, lines: ["第一页的文字", "Page one"] }, { picture: page2, lines: ["Page two text"] }])).toBe(written);
  });

  test("read text cannot open a block or a link of its own", () => {
    for (const line of ["- item", "+ item", "> quote", "<script>x</script>", "| a | b |", "~~~", "```", "=====", "2) two", "![x](/api/files/1)"]) {
      const paragraph = `[picture 1](/api/files/1) ok\n${escapeLine(line)}`;
      expect(notePictures(paragraph)).toEqual([]);
      expect(markdownPlainText(paragraph).replace(/\s+/g, "")).toBe(`picture1ok${line.replace(/\s+/g, "")}`);
    }
  });
});
