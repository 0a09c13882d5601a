import { describe, expect, test } from "bun:test";
import { clipTitle, creditLine, imageNote, markdownLink, markdownQuote, selectionNote } from "../../extension/src/clip-markdown";
import { normaliseServer } from "../../extension/src/settings";

describe("the notes the extension writes", () => {
  test("a selection is quoted line by line, blank lines kept inside the quote", () => {
    expect(markdownQuote("  First line\r\n\r\nSecond line  \n")).toBe("> First line\n>\n> Second line");
  });

  test("the credit line survives brackets in the title and parentheses or spaces in the address", () => {
    expect(creditLine({ title: "A [great]  read", url: "https://example.com/wiki/Foo_(bar) baz" })).toBe("— [A \\[great\\] read](https://example.com/wiki/Foo_%28bar%29%20baz)");
    expect(markdownLink("", "https://example.com/")).toBe("[https://example.com/](https://example.com/)");
  });

  test("a selection note: the page's title, the quote, the credit, tagged clipped", () => {
    expect(selectionNote({ text: "Quoted words", title: "The page", url: "https://example.com/p" })).toEqual({
      title: "The page",
      content: "> Quoted words\n\n— [The page](https://example.com/p)\n",
      tags: ["clipped"],
    });
  });

  test("a page without a title is named by the clip; a long title is cut to the notes' 500", () => {
    expect(clipTitle("  ", "First words of the selection")).toBe("First words of the selection");
    expect(clipTitle("", "")).toBe("Clipped from the web");
    expect(clipTitle("x".repeat(600), "")).toHaveLength(500);
  });

  test("an image note shows the stored file with its alt text, named by the page or else the image's file", () => {
    const note = imageNote({ fileUrl: "/api/files/7", alt: "A [chart]", title: "", url: "https://example.com/g", imageUrl: "https://cdn.example.com/img/q3%20chart.png?x=1" });
    expect(note).toEqual({ title: "A [chart]", content: "![A \\[chart\\]](/api/files/7)\n\n— [https://example.com/g](https://example.com/g)\n", tags: ["clipped"] });
    expect(imageNote({ fileUrl: "/api/files/8", alt: "", title: "", url: "https://example.com/g", imageUrl: "https://cdn.example.com/img/q3%20chart.png" }).title).toBe("q3 chart.png");
  });
});

describe("the server address", () => {
  test("is tidied to scheme, host and path without a trailing slash; https is assumed", () => {
    expect(normaliseServer(" https://notes.example.com/ ")).toBe("https://notes.example.com");
    expect(normaliseServer("notes.example.com/rhizome/")).toBe("https://notes.example.com/rhizome");
    expect(normaliseServer("http://127.0.0.1:3000")).toBe("http://127.0.0.1:3000");
    expect(() => normaliseServer("ftp://example.com")).toThrow(/https/);
  });
});
