import { expect, test } from "bun:test";
import { plainTextExcerpt } from "../../../src/modules/notes/excerpt";
import { markdownPlainText } from "../../../src/text/markdown-text";

test("the excerpt is plain text with HTML entities decoded, once", () => {
  expect(plainTextExcerpt("Caf&eacute; &copy; 2026 &mdash; &#x4e2d; &amp;amp; &#39;q&#39;")).toBe("Café © 2026 — 中 &amp; 'q'");
});

test("entities in headings, emphasis, links and lists are decoded too", () => {
  expect(plainTextExcerpt("# R&eacute;sum&eacute;\n\n- **&copy;** [&mdash; link](https://example.com)")).toBe("Résumé © — link");
});

test("code keeps its text as written", () => {
  expect(plainTextExcerpt("Use `&amp;` for &amp;.\n\n```\n&copy;\n```")).toBe("Use &amp; for &. &copy;");
});

/** What the excerpt must equal: the text of the whole 4 KiB prefix, cut to 200 characters. */
const fromWholePrefix = (markdown: string) => Array.from(markdownPlainText(markdown.slice(0, 4096))).slice(0, 200).join("");

test("long notes give the excerpt of their whole prefix, whatever block the first blank line after 768 characters ends", () => {
  const sentence = (n: number) => `Sentence ${n} about **graphs** and [links](https://example.com/${n}) with &amp; entities.`;
  const paragraph = (n: number, size: number) => Array.from({ length: size }, (_, i) => sentence(n * 10 + i)).join(" ");
  const blocks = [
    (n: number) => paragraph(n, 3),
    (n: number) => `## Heading ${n}\n\n${paragraph(n, 2)}`,
    (n: number) => "```\ncode line\n\nmore code after a blank line\n```",
    (n: number) => `- item ${n}\n\n- loose item ${n} ${paragraph(n, 1)}`,
    (n: number) => `<!-- a comment\n\nthat spans a blank line ${n} -->`,
    (n: number) => `Setext ${n}\n===`,
    (n: number) => `> quoted ${paragraph(n, 1)}\n>\n> more`,
    (n: number) => `${paragraph(n, 2)}\n${paragraph(n + 1, 2)}\nplain line ${n}\n${paragraph(n + 2, 1)}`,
    (n: number) => `Line ${n} **bold\nacross** a \`code\nspan\` and [link\ntext](https://example.com) ${paragraph(n, 3)}`,
    (n: number) => `| head ${n} | b |\n|---|---|\n| ${paragraph(n, 1)} | c |`,
    (n: number) => `words before ${"plain ".repeat(130)}\n*emphasis that opens\nbefore a break* and ends after`,
  ];
  for (let seed = 0; seed < 80; seed++) {
    const parts: string[] = [];
    for (let at = 0; at < 12; at++) parts.push(blocks[(seed * 7 + at * (seed % 5 + 1)) % blocks.length]!(at));
    const markdown = parts.join("\n\n");
    expect(plainTextExcerpt(markdown)).toBe(fromWholePrefix(markdown));
  }
});

test("a link defined further on reads as its text, as in the whole note", () => {
  const markdown = `${"Filler words for the excerpt. ".repeat(30)}\n\nSee [the docs][docs] for more.\n\n${"More words. ".repeat(80)}\n\n[docs]: https://example.com/docs`;
  const shortNote = `[the docs][docs] ${"x ".repeat(400)}\n\n${"y ".repeat(400)}\n\n[docs]: https://example.com`;
  expect(plainTextExcerpt(markdown)).toBe(fromWholePrefix(markdown));
  expect(plainTextExcerpt(shortNote)).toStartWith("the docs x");
});

test("markup that opens before the first line break after 768 characters and closes after it reads as in the whole note", () => {
  const long = "plain words ".repeat(66); // 792 characters, no line break: the first break comes after 768
  const crossings = [
    `*emphasis ${long}\nacross the break* and on`,
    `**strong ${long}\nacross the break** and on`,
    `\`code ${long}\nacross the break\` and on`,
    `[a link ${long}\nacross the break](https://example.com) and on`,
    `<span title='${long}\nattribute'>html</span> and on`,
    `~~struck ${long}\nacross the break~~ and on`,
    `| a ${long} | b |\n|---|---|\n| c | d |`,
  ];
  for (const crossing of crossings) {
    for (const markdown of [crossing, `# Title\n${crossing}`, `Intro.\n\n${crossing}`]) {
      expect(plainTextExcerpt(markdown)).toBe(fromWholePrefix(markdown));
    }
  }
});
