import { describe, expect, test } from "bun:test";
import { inflateSync } from "node:zlib";
import { unifyRadicals } from "../../../src/modules/documents/cjk-text";
import { fitMarkdown } from "../../../src/modules/documents/fit-markdown";
import { pageLines, textRuns, type PdfLine, type PdfTextRun } from "../../../src/modules/documents/pdf/page-lines";
import { joinLines, lineSpacing, pageParagraphs } from "../../../src/modules/documents/pdf/paragraphs";
import { pdfTitle } from "../../../src/modules/documents/pdf/pdf-title";
import { runningLines } from "../../../src/modules/documents/pdf/running-lines";
import { encodePng, shrinkToFit } from "../../../src/modules/documents/png";

/** A run as PDF.js gives it: at (x, y), 10 units high, 5 units a character wide unless said. */
const run = (text: string, x: number, y: number, options: Partial<PdfTextRun> = {}): PdfTextRun => ({ text, x, y, width: text.length * 5, size: 10, endsLine: false, ...options });
const line = (text: string, y: number, options: Partial<PdfLine> = {}): PdfLine => ({ text, x: 50, y, right: 50 + text.length * 5, size: 10, ...options });

describe("lines of a PDF page", () => {
  test("runs on one baseline are one line; a gap between runs is a space, except between ideographs", () => {
    const lines = pageLines([run("Hello", 50, 700), run("world", 80, 700), run("中文", 50, 685), run("段落", 60, 685), run("next", 50, 670)]);
    expect(lines.map((each) => each.text)).toEqual(["Hello world", "中文段落", "next"]);
  });

  test("a run that ends a line (PDF.js's hasEOL), goes back left or sits on another baseline starts a new line; a superscript stays", () => {
    const lines = pageLines([run("one", 50, 700, { endsLine: true }), run("two", 70, 700), run("E = mc", 50, 680), run("2", 80, 683, { size: 6 }), run("left", 10, 680)]);
    expect(lines.map((each) => each.text)).toEqual(["one", "two", "E = mc2", "left"]);
  });

  test("PDF.js items become runs: the size from the matrix, control characters as spaces, radicals as ideographs", () => {
    const [item] = textRuns([{ str: "⽂档\u0001x", transform: [0, 12, -12, 0, 100, 200], width: 30, hasEOL: true }, { type: "beginMarkedContent" }]);
    expect(item).toEqual({ text: "文档 x", x: 100, y: 200, width: 30, size: 12, endsLine: true });
    expect(unifyRadicals("⻚码⽤来⾏")).toBe("页码用来行");
  });
});

describe("paragraphs of a PDF page", () => {
  test("a hyphen at a Latin line's end rejoins its word; a capital or a number after it keeps the hyphen; Chinese joins without a space; other lines with one", () => {
    expect(joinLines("an inter-", "national review")).toBe("an international review");
    expect(joinLines("Jean-", "Paul Sartre")).toBe("Jean-Paul Sartre");
    expect(joinLines("COVID-", "19 cases")).toBe("COVID-19 cases");
    expect(joinLines("soft\u00ad", "ware")).toBe("software");
    expect(joinLines("文档导入功能可以把", "PDF文件转换成笔记")).toBe("文档导入功能可以把PDF文件转换成笔记");
    expect(joinLines("a line", "and the next")).toBe("a line and the next");
  });

  test("lines join until a wider gap, a new size, an indented first line, a bullet or a short line ending a sentence", () => {
    const lines = [
      line("Title of the page", 760, { size: 16, right: 300 }),
      line("The first paragraph runs over two lines of", 730, { right: 500 }),
      line("the page.", 718, { right: 100 }),
      line("A second paragraph after a short line.", 706, { right: 500 }),
      line("A third after a wide gap.", 680, { right: 500 }),
      line("An indented first line starts", 668, { x: 70, right: 500 }),
      line("a fourth paragraph.", 656, { right: 500 }),
      line("• a bullet", 644, { right: 200 }),
    ];
    const paragraphs = pageParagraphs(lines, lineSpacing([lines]));
    expect(paragraphs).toEqual([
      "Title of the page",
      "The first paragraph runs over two lines of the page.",
      "A second paragraph after a short line.",
      "A third after a wide gap.",
      "An indented first line starts a fourth paragraph.",
      "- a bullet",
    ]);
  });

  test("text that would read as Markdown structure or as a marker is escaped", () => {
    const paragraphs = pageParagraphs([line("# not a heading", 700), line("[p. 3] is not a page", 670), line("> not a quote", 640)], () => 12);
    expect(paragraphs).toEqual(["\\# not a heading", "\\[p. 3] is not a page", "\\> not a quote"]);
  });
});

const WORDS = ["apple", "birch", "cedar", "dune", "elm"];

describe("running headers and footers", () => {
  const body = (index: number) => [`Alpha ${WORDS[index]} line.`, "Bravo line.", "Same words on every page, mid-page.", "Charlie line.", `Delta ${WORDS[index]}, the last.`];
  const pageOf = (index: number) => [
    line("The Handbook", 800),
    // A heading opening some pages, wherever their text starts.
    ...(index % 2 === 0 ? [line("A Heading", 780 - index * 7)] : []),
    ...body(index).map((text, at) => line(text, 700 - at * 12)),
    line(`Page ${index + 1} of 5`, 40),
  ];

  test("a line at the same edge and height on most pages is running, its page number read as a placeholder; a heading that opens pages at other heights is not, nor a line repeated mid-page", () => {
    const pages = [0, 1, 2, 3, 4].map(pageOf);
    const running = runningLines(pages, []);
    const kept = pages.map((lines) => lines.filter((each) => !running.has(each)).map((each) => each.text));
    expect(kept[2]).toEqual(["A Heading", ...body(2)]);
    expect(kept[3]).toEqual(body(3));
  });

  test("printed page numbers that run a fixed distance from the page's position are running too; a page's label stands for its number; three pages are the fewest judged", () => {
    const printed = [0, 1, 2, 3].map((index) => [line(`Words of page ${"abcd"[index]}.`, 700), line("More words.", 688), line(`The last of ${"abcd"[index]}.`, 676), line(String(index + 7), 40)]);
    const running = runningLines(printed, []);
    expect(printed.map((lines) => lines.filter((each) => running.has(each)).map((each) => each.text))).toEqual([["7"], ["8"], ["9"], ["10"]]);
    const labelled = ["i", "ii", "iii"].map((label, index) => [line(`Front matter on ${WORDS[index]}.`, 700), line("Another line.", 688), line(`One more on ${WORDS[index]}.`, 676), line(`— ${label} —`, 40)]);
    expect(runningLines(labelled, ["i", "ii", "iii"]).size).toBe(3);
    expect(runningLines(printed.slice(0, 2), []).size).toBe(0);
  });
});

describe("a document's title and the note's room", () => {
  test("the info dictionary's Title, else XMP dc:title; placeholders and Word's prefix are no title", () => {
    expect(pdfTitle({ info: { Title: "Microsoft Word - Annual Report.docx" } })).toBe("Annual Report.docx");
    expect(pdfTitle({ info: { Title: "about:blank" }, metadata: { get: (name) => (name === "dc:title" ? "From XMP" : null) } })).toBe("From XMP");
    expect(pdfTitle({ info: { Title: "Untitled-1" } })).toBeUndefined();
    expect(pdfTitle(null)).toBeUndefined();
  });

  test("Markdown past the room is cut at its last paragraph break under it, by UTF-8 bytes", () => {
    const markdown = ["第一段。".repeat(10), "Second paragraph.", "第三段。".repeat(10)].join("\n\n");
    expect(fitMarkdown(markdown, 10_000)).toEqual({ markdown, cut: false });
    const cut = fitMarkdown(markdown, 140);
    expect(cut).toEqual({ markdown: ["第一段。".repeat(10), "Second paragraph."].join("\n\n"), cut: true });
  });
});

describe("pictures of pages without text", () => {
  test("pixels become a PNG whose rows decode back to them; a large scan is shrunk to fit", () => {
    const pixels = { width: 3, height: 2, channels: 3 as const, data: Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18) };
    const png = encodePng(pixels);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const view = new DataView(png.buffer, png.byteOffset);
    expect([view.getUint32(16), view.getUint32(20)]).toEqual([3, 2]);
    const idatLength = view.getUint32(33);
    const raw = inflateSync(png.subarray(41, 41 + idatLength));
    // Row 0 unfiltered, row 1 "Up": each byte minus the one above.
    expect([...raw]).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 2, 9, 9, 9, 9, 9, 9, 9, 9, 9]);
    const shrunk = shrinkToFit({ width: 4000, height: 2000, channels: 1, data: new Uint8Array(8_000_000).fill(200) }, 2400);
    expect([shrunk.width, shrunk.height, shrunk.data[0]]).toEqual([2000, 1000, 200]);
  });
});
