import { describe, expect, test } from "bun:test";
import { htmlToMarkdown, parseHtmlDocument } from "../../../src/modules/imports/html-to-markdown";
import { ImportError } from "../../../src/modules/imports/import-error";

describe("htmlToMarkdown", () => {
  test("writes ATX headings, - bullets, numbered lists and emphasis", () => {
    const markdown = htmlToMarkdown(
      "<h2>Title</h2><p>Some <strong>bold</strong> and <em>soft</em> words.</p><ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul><ol start=\"3\"><li>three</li><li>four</li></ol>",
    );
    expect(markdown).toBe(
      "## Title\n\nSome **bold** and _soft_ words.\n\n- one\n- two\n  - nested\n\n3. three\n4. four",
    );
  });

  test("fences code with its language, longer fences around backticks", () => {
    expect(htmlToMarkdown('<pre><code class="language-ts">const a = 1;\nconst b = 2;</code></pre>')).toBe(
      "```ts\nconst a = 1;\nconst b = 2;\n```",
    );
    expect(htmlToMarkdown("<pre><code>echo ```</code></pre>")).toBe("````\necho ```\n````");
  });

  test("joins one-<code>-per-line blocks and <br> lines with newlines, nbsp as spaces", () => {
    expect(htmlToMarkdown('<pre data-lang="python"><code>def f():</code><code>&nbsp;&nbsp;return 1</code></pre>')).toBe(
      "```python\ndef f():\n  return 1\n```",
    );
    expect(htmlToMarkdown("<pre>a<br>b</pre>")).toBe("```\na\nb\n```");
  });

  test("keeps images as ![alt](src) and links as [text](href)", () => {
    expect(
      htmlToMarkdown('<p><img src="https://example.com/a.png" alt="A [cat]"> see <a href="https://example.com/x_(y)">here</a></p>'),
    ).toBe("![A \\[cat\\]](https://example.com/a.png) see [here](https://example.com/x_%28y%29)");
  });

  test("decodes entities escaped twice in URLs as an attribute would, and still refuses a hidden javascript:", () => {
    const html =
      '<p><a href="https://example.com/?a=1&amp;amp;b=2&amp;#38;c=3&copy=4">x</a>' +
      '<img data-src="https://mmbiz.qpic.cn/a?wx_fmt=png&amp;amp;from=appmsg"><a href="&amp;#x6A;avascript:alert(1)">bad</a></p>';
    expect(htmlToMarkdown(html)).toBe(
      "[x](https://example.com/?a=1&b=2&c=3&copy=4)![](https://mmbiz.qpic.cn/a?wx_fmt=png&from=appmsg)bad",
    );
  });

  test("prefers a real data-src over a placeholder src, and upgrades //cdn links to https", () => {
    expect(htmlToMarkdown('<img src="data:image/gif;base64,R0lGOD" data-src="//cdn.example.com/b.jpg">')).toBe(
      "![](https://cdn.example.com/b.jpg)",
    );
  });

  test("drops script, style, noscript, iframe, form and svg, content included", () => {
    const markdown = htmlToMarkdown(
      '<p>kept</p><script>alert(1)</script><style>p{}</style><noscript>enable js</noscript><iframe src="https://x.example"></iframe><form><input value="v"><button>Go</button></form><svg><text>svg text</text></svg>',
    );
    expect(markdown).toBe("kept");
  });

  test("turns javascript:, data: and relative links into their text and drops such images", () => {
    const markdown = htmlToMarkdown(
      '<p><a href="javascript:alert(1)">a</a> <a href=" JAVASCRIPT:alert(1)">b</a> <a href="data:text/html,x">c</a> <a href="/relative">d</a> <a href="#top">e</a> <a href="mailto:me@example.com">mail</a><img src="javascript:alert(1)"><img src="/relative.png"></p>',
    );
    expect(markdown).toBe("a b c d e [mail](mailto:me@example.com)");
  });

  test("collapses blank paragraphs and trims", () => {
    expect(htmlToMarkdown("<p>one</p><p><br></p><p>&nbsp;</p><section><p>two</p></section>\n\n")).toBe("one\n\ntwo");
  });

  test("accepts an element as well as a string, with the same result", () => {
    const html = "<div><h3>Hi</h3><p>Body <a href=\"https://example.com/\">link</a></p></div>";
    const element = parseHtmlDocument(html).querySelector("div");
    expect(element).not.toBeNull();
    expect(htmlToMarkdown(element!)).toBe(htmlToMarkdown(html));
  });

  test("is deterministic", () => {
    const html = "<h1>T</h1><p>a <b>b</b> c</p><ul><li>x</li></ul>";
    expect(htmlToMarkdown(html)).toBe(htmlToMarkdown(html));
  });

  test("returns an empty string for empty input", () => {
    expect(htmlToMarkdown("")).toBe("");
    expect(htmlToMarkdown("<div>  </div>")).toBe("");
  });
});

describe("parseHtmlDocument", () => {
  test("gives fragments and body-less pages a body, keeping head elements findable", () => {
    for (const html of ["<p>x</p>", "<!DOCTYPE html><p>x</p>", "<html><head><title>T</title></head><p>x</p></html>"]) {
      const document = parseHtmlDocument(html);
      expect(document.body?.textContent).toBe("x");
    }
    expect(parseHtmlDocument("<html><head><title>T</title></head><p>x</p></html>").title).toBe("T");
  });
});

describe("pathological input", () => {
  // Quadratic regexes would turn these into minutes; the run's timeout is what catches that.
  test("long whitespace runs and unclosed heads or tags still convert", () => {
    expect(htmlToMarkdown(`<pre>${" ".repeat(300_000)}x</pre><p>${"a ".repeat(100_000)}</p>`)).toStartWith("```\n");
    expect(parseHtmlDocument(`${"<head ".repeat(50_000)}<p>x</p>`).body).toBeTruthy();
    expect(parseHtmlDocument(`${"<html ".repeat(50_000)}`).body).toBeTruthy();
  });

  test("markup nested thousands deep is a permanent ImportError, not a stack overflow", () => {
    let error: unknown;
    try {
      htmlToMarkdown(`${"<div>".repeat(5000)}deep`);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ImportError);
    expect((error as ImportError).permanent).toBe(true);
    expect((error as ImportError).message).toContain("nested too deeply");
  });
});
