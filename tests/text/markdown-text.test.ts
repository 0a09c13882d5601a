import { describe, expect, test } from "bun:test";
import { markdownPlainText } from "../../src/text/markdown-text";

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
