import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Lexer } from "marked";
import { lexMarkdown, markdownPlainText } from "../../src/text/markdown-text";

describe("markdownPlainText: the text a reader sees", () => {
  test("markup goes, its words stay, whitespace collapses", () => {
    expect(markdownPlainText("# Two systems\n\n**System 1** is _fast_\n\n> and [System 2](https://example.com) slow.")).toBe(
      "Two systems System 1 is fast and System 2 slow.",
    );
  });

  test("images, raw HTML and rules are not text", () => {
    expect(markdownPlainText('Before ![a chart](/api/files/3 "title")\n\n<div class="x">hidden</div>\n\n---\n\nafter')).toBe("Before after");
  });

  test("entities are decoded in text, and code keeps what was written", () => {
    expect(markdownPlainText("Caf&eacute; &amp; `&amp; stays`\n\n```\nif (a &lt; b) {}\n```")).toBe("Café & &amp; stays if (a &lt; b) {}");
  });

  test("list items and table cells are text, header first", () => {
    expect(markdownPlainText("- one\n- **two**\n\n| Name | Kind |\n| --- | --- |\n| SQLite | database |")).toBe("one two Name Kind SQLite database");
  });

  test("CJK text comes through whole, and an empty note is empty", () => {
    expect(markdownPlainText("## 神经网络\n\n**神经网络**由多层神经元组成。")).toBe("神经网络 神经网络 由多层神经元组成。");
    expect(markdownPlainText("")).toBe("");
  });
});

describe("lexing without the setext rule where it cannot match", () => {
  const LINES = [
    "A paragraph line", "more words *here* and `code`", "", "===", "---", "  ===", "   ---  ", "> ===", "> ---", ">> ===", "\t---",
    "      ---", "- item", "  - nested item", "    ---", "1. first", "> a quote", "```", "    indented code", "# Heading", "| a | b |",
    "|---|---|", "=== not an underline", "- - -", "***", "<div>html</div>", "Title\r", "===\r", "[link](https://example.com)", "中文段落",
  ];
  const markdown = fc.array(fc.constantFrom(...LINES), { maxLength: 14 }).map((lines) => lines.join("\n"));

  test("gives exactly marked's tokens, with or without a line that could underline a heading", () => {
    fc.assert(
      fc.property(markdown, (text) => {
        expect(JSON.stringify(lexMarkdown(text))).toBe(JSON.stringify(Lexer.lex(text)));
      }),
      { numRuns: 3000 },
    );
  });

  test("setext headings are still headings, in a quote and in a list too", () => {
    for (const text of ["Title\n===", "Title\n---", "> Title\n> ===", "- Title\n  ---"]) {
      expect(JSON.stringify(lexMarkdown(text))).toContain('"type":"heading"');
    }
  });
});
