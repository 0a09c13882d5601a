import { expect, test } from "bun:test";
import { decodeHtmlAttribute, decodeHtmlEntities, escapeHtml } from "../../src/text/html-entities";

test("text: every named entity, decimal and hex references, decoded once", () => {
  expect(decodeHtmlEntities("&eacute; &copy; &mdash; &#x4e2d; &#20013; &amp;amp; &quot;q&quot; &#39;")).toBe(
    `é © — 中 中 &amp; "q" '`,
  );
});

test("text: unknown names and bare ampersands stay as written", () => {
  expect(decodeHtmlEntities("&bogus; AT&T a & b")).toBe("&bogus; AT&T a & b");
});

test("attributes: a query parameter that looks like a legacy entity is kept", () => {
  expect(decodeHtmlAttribute("https://example.com/?a=1&amp;b=2&copy=3")).toBe("https://example.com/?a=1&b=2&copy=3");
});

test("escaping makes text safe inside elements and quoted attributes", () => {
  expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;");
  expect(decodeHtmlEntities(escapeHtml(`<a href="x">'&'</a>`))).toBe(`<a href="x">'&'</a>`);
});
