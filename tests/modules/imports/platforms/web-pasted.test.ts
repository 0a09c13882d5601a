import { describe, expect, test } from "bun:test";
import { documentFromPastedText } from "../../../../src/modules/imports/pasted-text";
import type { ImportedDocument } from "../../../../src/modules/imports/platforms/types";
import { webImporter } from "../../../../src/modules/imports/platforms/web";
import { readFixture } from "../../../support/platform-fixtures";
import { importFailureOf as failureOf } from "../../../support/import-failure";

const BLOG_URL = "https://fieldnotes.example.com/2025/03/sqlite-is-enough/";
const CNBLOGS_URL = "https://www.cnblogs.com/slowthink/p/18765432";

function paste(html: string, url?: string): ImportedDocument {
  return webImporter.parsePasted(html, url);
}


function blogWith(from: string | RegExp, to: string): string {
  const html = readFixture("web", "blog-article.html");
  const changed = html.replace(from, to);
  expect(changed).not.toBe(html);
  return changed;
}

/** A minimal article page around some text, for title, date and tag edge cases. */
function page(head: string, body = `<article><h1>Heading</h1><p>${"Plenty of article text here. ".repeat(12)}</p></article>`): string {
  return `<!DOCTYPE html><html><head>${head}</head><body>${body}</body></html>`;
}

describe("a blog article with navigation, sidebar, comments and footer", () => {
  const document = paste(readFixture("web", "blog-article.html"), BLOG_URL);

  test("takes the article title, byline and publish time", () => {
    expect(document.title).toBe("Why SQLite Is Enough for Most Side Projects");
    expect(document.author).toBe("Maya Lindqvist");
    expect(document.publishedAt).toBe("2025-03-14T07:30:00.000Z");
  });

  test("takes tags from article:tag and keywords, trimmed, without # and duplicates", () => {
    expect(document.tags).toEqual(["Databases", "Architecture", "SQLite", "side projects", "Performance"]);
  });

  test("keeps the article's text, headings, lists and code", () => {
    expect(document.markdown).toStartWith("Every few months someone asks me which database they should pick");
    expect(document.markdown).toContain("## Throughput is not the bottleneck");
    expect(document.markdown).toContain("- You need several machines to write to the same database.");
    expect(document.markdown).toContain("```sql\nPRAGMA journal_mode = WAL;\nPRAGMA synchronous = NORMAL;\nPRAGMA busy_timeout = 5000;\n```");
  });

  test("resolves relative images and links against the page URL", () => {
    expect(document.markdown).toContain(
      "![Requests per second, SQLite versus Postgres](https://fieldnotes.example.com/2025/images/sqlite-benchmark.png)",
    );
    expect(document.markdown).toContain("[last year's benchmark post](https://fieldnotes.example.com/2024/11/benchmarking-wal/)");
  });

  test("leaves out navigation, sidebar, comments, footer and cookie banner", () => {
    for (const noise of ["Newsletter", "Popular posts", "dbfan42", "Buy cheap followers", "Privacy", "We use cookies", "Skip to content"]) {
      expect(document.markdown).not.toContain(noise);
    }
  });

  test("drops scripts and javascript: links, keeping the link text", () => {
    expect(document.markdown).toContain("Click here if you disagree.");
    expect(document.markdown).not.toMatch(/javascript:|alert|injected by a widget|gtag/);
  });

  test("uses the canonical link, resolved, as the source", () => {
    expect(document.sourceUrl).toBe(BLOG_URL);
  });
});

describe("a Chinese article", () => {
  const document = paste(readFixture("web", "chinese-article.html"), CNBLOGS_URL);

  test("takes the title without the site suffix, and keywords split on Chinese commas", () => {
    expect(document.title).toBe("为什么我不再用番茄钟了");
    expect(document.tags).toEqual(["时间管理", "番茄工作法", "专注", "效率"]);
  });

  test("keeps the body and resolves its image", () => {
    expect(document.markdown).toStartWith("番茄钟帮我度过了研究生的三年。");
    expect(document.markdown).toContain("**调试一个问题往往需要四十分钟以上的连续思考**");
    expect(document.markdown).toContain("1. 每天早上只定一个目标，写在便签上；");
    expect(document.markdown).toContain(
      "![我的一天](https://www.cnblogs.com/blog/712345/202503/712345-20250302213015123-1890345.png)",
    );
  });

  test("leaves out the blog's sidebar and widgets", () => {
    for (const noise of ["园龄", "我的标签", "好文要顶", "博问", "Powered by"]) {
      expect(document.markdown).not.toContain(noise);
    }
  });

  test("has no author or time when the page states none", () => {
    expect(document.author).toBeUndefined();
    expect(document.publishedAt).toBeUndefined();
    expect(document.sourceUrl).toBe(CNBLOGS_URL);
  });
});

describe("pages without an article", () => {
  test("a login page is a permanent error saying no article text was found", () => {
    const error = failureOf(() => paste(readFixture("web", "no-article.html"), "https://console.example.com/login"));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("No article text found on this page");
  });

  test("a page with only headings, links and a form has no text to import", () => {
    const body = `<header><a href="/">Home</a></header><nav><a href="/a">About</a> · <a href="/b">Blog</a></nav>
      <main><h1>Subscribe</h1><form><label>Email <input name="e"></label><button>Go</button></form>
      <p><a href="/rss">RSS</a> | <a href="/atom">Atom</a></p></main><footer>© 2026 Example</footer>`;
    const error = failureOf(() => paste(page("<title>Subscribe</title>", body), "https://example.com/subscribe"));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("No article text found");
  });
});

describe("a short page is still an article", () => {
  test("an <article> with an <h1> and one short paragraph imports that paragraph, without the page chrome", () => {
    const body = `<header><a href="/">Field notes</a></header><nav><a href="/archive">Archive</a></nav>
      <article><h1>Moving day</h1><p>We moved the blog to a <a href="/new">new server</a> today.</p></article>
      <aside>Popular posts</aside><footer>Privacy · Terms</footer>`;
    const document = paste(page("<title>Moving day · Field notes</title>", body), "https://notes.example.com/moving");
    expect(document.markdown).toContain("We moved the blog to a [new server](https://notes.example.com/new) today.");
    for (const chrome of ["Archive", "Popular posts", "Privacy", "Field notes]"]) expect(document.markdown).not.toContain(chrome);
    // The article's own <h1>, without the site's name that <title> adds.
    expect(document.title).toBe("Moving day");
  });

  test("a body whose whole text is one short paragraph imports it, titled by it when the page has no title", () => {
    const document = paste("<p>Coming soon.</p>");
    expect(document.markdown).toBe("Coming soon.");
    expect(document.title).toBe("Coming soon.");
  });
});

describe("web metadata fallbacks", () => {
  test("without a meta publish time, <time datetime> is used", () => {
    const html = blogWith(/<meta property="article:published_time"[^>]*>/, "");
    expect(paste(html, BLOG_URL).publishedAt).toBe("2025-03-14T07:30:00.000Z");
  });

  test("dates that are not calendar dates are ignored", () => {
    const html = page('<meta property="article:published_time" content="1"><title>T</title>');
    expect(paste(html).publishedAt).toBeUndefined();
    const junk = page('<meta property="article:published_time" content="2025-13-45T99:00"><title>T</title>');
    expect(paste(junk).publishedAt).toBeUndefined();
  });

  test("at most 16 tags, each once regardless of case", () => {
    const keywords = Array.from({ length: 30 }, (_, i) => `tag${i}`).join(", ");
    const html = page(`<meta name="keywords" content="Go, go, GO, ${keywords}"><title>T</title>`);
    const tags = paste(html).tags;
    expect(tags).toHaveLength(16);
    expect(tags.slice(0, 2)).toEqual(["Go", "tag0"]);
  });

  test("pasted without a URL, relative images are dropped and relative links become text", () => {
    const document = paste(readFixture("web", "blog-article.html"));
    expect(document.markdown).not.toContain("../../images/");
    expect(document.markdown).toContain("the details are in last year's benchmark post.");
    expect(document.sourceUrl).toBe(BLOG_URL);
  });
});

describe("hostile web pages", () => {
  test("a very long title is cut to 500 UTF-16 units, its whitespace shortened", () => {
    const html = page(`<title>${"Long \n\t title ".repeat(80)}</title>`, `<article><p>${"Plenty of article text here. ".repeat(12)}</p></article>`);
    const title = paste(html).title;
    expect(title).toBe("Long title ".repeat(80).slice(0, 500).trimEnd());
  });

  test("control and bidi-override characters are dropped from titles", () => {
    const html = page("<title>\u202eevil\u0007 title\u0000</title>", `<article><p>${"Plenty of article text here. ".repeat(12)}</p></article>`);
    expect(paste(html).title).toBe("evil title");
  });

  test("an empty title falls back to og:title, then to the first line of the text", () => {
    const body = `<article><p>${"Plenty of article text here. ".repeat(12)}</p></article>`;
    expect(paste(page('<title>  </title><meta property="og:title" content="From OG">', body)).title).toBe("From OG");
    expect(paste(page("<title></title>", body)).title).toStartWith("Plenty of article text here.");
  });

  test("scripts, iframes, event handlers and unsafe URLs never reach the Markdown", () => {
    const body = `<article><h1>Post</h1><p>${"Real words in a real article. ".repeat(10)}</p>
      <p>Before<script>alert('x')</script><iframe src="https://evil.example/"></iframe>after
      <img src="https://cdn.example.com/a.png" onerror="alert(1)" alt="pic">
      <img src="data:image/png;base64,AAAA" alt="inline">
      <a href="vbscript:msgbox(1)">vb</a> <a href="data:text/html,hi">data</a></p></article>`;
    const markdown = paste(page("<title>Post</title>", body), "https://blog.example.com/post").markdown;
    expect(markdown).toContain("![pic](https://cdn.example.com/a.png)");
    expect(markdown).not.toMatch(/alert|evil\.example|vbscript|data:|onerror/);
  });

  test("a page nested thousands deep fails permanently before Readability stalls on it", () => {
    const error = failureOf(() => paste(page("<title>Deep</title>", `${"<div>".repeat(5000)}${"text ".repeat(100)}`)));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("nested too deeply");
  });
});

describe("pasting plain text or Markdown", () => {
  test("the first heading is the title and the text is kept as Markdown", () => {
    const text = "Notes from the talk\n\n## Why SQLite\n\nIt is a single file.";
    const document = paste(text, BLOG_URL);
    expect(document).toEqual({ title: "Why SQLite", markdown: text, tags: [], sourceUrl: BLOG_URL });
  });

  test("without a heading, the first non-empty line is the title", () => {
    expect(paste("\n\n   SQLite is enough.   \nSecond line.").title).toBe("SQLite is enough.");
  });

  test("prose that mentions a tag is not mistaken for HTML", () => {
    const text = "Use the <b> tag sparingly.\nIt makes text bold.";
    expect(paste(text).markdown).toBe(text);
  });

  test("a first line longer than 500 UTF-16 units is cut there", () => {
    expect(documentFromPastedText("x".repeat(800)).title).toBe("x".repeat(500));
  });

  test("empty or whitespace-only content is a permanent error", () => {
    for (const content of ["", "   ", "\n\t\n"]) {
      const error = failureOf(() => paste(content));
      expect(error.permanent).toBe(true);
      expect(error.message).toContain("empty");
    }
  });

  test("a non-http URL is not kept as the source", () => {
    expect(documentFromPastedText("Hello", "javascript:alert(1)").sourceUrl).toBeUndefined();
  });
});

describe("a pasted page's title and byline (a newcomer's trial)", () => {
  const article = (head: string, top = "") =>
    page(
      head,
      `<article><h1>Prospect Theory Explained</h1>${top}<p>${"Losses loom larger than gains, and people judge outcomes against a reference point. ".repeat(6)}</p></article>`,
    );

  test("the site's suffix goes when og:title and the <h1> name the article", () => {
    const document = paste(article('<title>Prospect Theory Explained | Econ Blog</title><meta property="og:title" content="Prospect Theory Explained">'));
    expect(document.title).toBe("Prospect Theory Explained");
  });

  test("the <h1> alone is enough, and a site name first goes too", () => {
    expect(paste(article("<title>Econ Blog — Prospect Theory Explained</title>")).title).toBe("Prospect Theory Explained");
  });

  test("og:site_name is cut off a title no heading confirms", () => {
    const html = page('<title>Why Anchors Work - Econ Blog</title><meta property="og:site_name" content="Econ Blog">', `<article><h2>Part one</h2><p>${"Anchoring text. ".repeat(30)}</p></article>`);
    expect(paste(html).title).toBe("Why Anchors Work");
  });

  test("a title that merely contains a separator is kept whole", () => {
    const html = page("<title>Rust vs. Go - a fair comparison</title>", `<article><p>${"Comparison text. ".repeat(30)}</p></article>`);
    expect(paste(html).title).toBe("Rust vs. Go - a fair comparison");
  });

  test("a byline that repeats the author leaves the body; the author stays in source", () => {
    const document = paste(article('<meta name="author" content="Jane Doe">', '<p class="byline">By Jane Doe</p>'));
    expect(document.author).toBe("Jane Doe");
    expect(document.markdown).not.toContain("By Jane Doe");
    expect(document.markdown).toContain("Losses loom larger than gains");
  });

  test("a line that names someone else, or says more, stays", () => {
    const document = paste(article('<meta name="author" content="Jane Doe">', "<p>By now, most economists accept that losses loom larger than gains for Jane Doe and everyone else.</p>"));
    expect(document.markdown).toContain("By now, most economists accept");
  });
});
