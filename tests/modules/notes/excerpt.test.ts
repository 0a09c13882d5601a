import { expect, test } from "bun:test";
import { plainTextExcerpt } from "../../../src/modules/notes/excerpt";

test("the excerpt is plain text with HTML entities decoded, once", () => {
  expect(plainTextExcerpt("Caf&eacute; &copy; 2026 &mdash; &#x4e2d; &amp;amp; &#39;q&#39;")).toBe("Café © 2026 — 中 &amp; 'q'");
});

test("entities in headings, emphasis, links and lists are decoded too", () => {
  expect(plainTextExcerpt("# R&eacute;sum&eacute;\n\n- **&copy;** [&mdash; link](https://example.com)")).toBe("Résumé © — link");
});

test("code keeps its text as written", () => {
  expect(plainTextExcerpt("Use `&amp;` for &amp;.\n\n```\n&copy;\n```")).toBe("Use &amp; for &. &copy;");
});
