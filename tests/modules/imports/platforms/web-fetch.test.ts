import { afterAll, describe, expect, test } from "bun:test";
import { PASTE_INSTEAD } from "../../../../src/modules/imports/import-error";
import type { Fetcher } from "../../../../src/modules/imports/platforms/types";
import { webImporter } from "../../../../src/modules/imports/platforms/web";
import { startFixtureServer } from "../../../fixtures/platforms/web/fixture-server";
import { readFixture } from "../../../support/platform-fixtures";
import { importRejectionOf as failureOf } from "../../../support/import-failure";

const SITE = "https://fieldnotes.example.com";

const server = startFixtureServer({
  "/2025/03/sqlite-is-enough/": { body: readFixture("web", "blog-article.html") },
  "/old/sqlite": { redirect: "/2025/03/sqlite-is-enough/" },
  "/slowthink/p/18765432": { body: readFixture("web", "chinese-article.html") },
  "/login": { body: readFixture("web", "no-article.html") },
  "/notes.txt": { contentType: "text/plain; charset=utf-8", body: "# Reading list\n\n- SQLite docs\n- Litestream" },
  "/cover.png": { contentType: "image/png", body: "\u0089PNG\r\n\u001a\n" },
  "/paper.pdf": { contentType: "application/pdf", body: "%PDF-1.7\n%âãÏÓ" },
  "/no-type": { contentType: "", body: readFixture("web", "blog-article.html") },
  "/gone": { status: 410, body: "Gone" },
  "/members-only": { status: 401, body: "<html><body>Please log in</body></html>" },
  "/forbidden": { status: 403, body: "<html><body>Forbidden</body></html>" },
  "/broken": { status: 500, body: "Internal Server Error" },
  "/overloaded": { status: 503, body: "" },
  "/slow-down": { status: 429, body: "" },
  "/teapot": { status: 418, body: "" },
});

afterAll(() => server.stop());

function fetchWeb(url: string, fetcher: Fetcher = server.fetcher) {
  return webImporter.fetchDocument(url, fetcher);
}


describe("fetching web pages through the fetcher", () => {
  test("a blog article comes out with its metadata and resolved images", async () => {
    const document = await fetchWeb(`${SITE}/2025/03/sqlite-is-enough/`);
    expect(document.title).toBe("Why SQLite Is Enough for Most Side Projects");
    expect(document.author).toBe("Maya Lindqvist");
    expect(document.publishedAt).toBe("2025-03-14T07:30:00.000Z");
    expect(document.tags).toContain("SQLite");
    expect(document.markdown).toContain("use SQLite");
    expect(document.markdown).toContain("(https://fieldnotes.example.com/2025/images/sqlite-benchmark.png)");
    expect(document.markdown).not.toContain("Popular posts");
    expect(document.sourceUrl).toBe(`${SITE}/2025/03/sqlite-is-enough/`);
  });

  test("asks like a desktop browser", async () => {
    await fetchWeb(`${SITE}/2025/03/sqlite-is-enough/`);
    const request = server.requests.findLast((seen) => seen.path === "/2025/03/sqlite-is-enough/");
    expect(request?.headers["user-agent"]).toContain("Mozilla/5.0");
    expect(request?.headers.accept).toContain("text/html");
  });

  test("after a redirect, relative links resolve against the final URL", async () => {
    const document = await fetchWeb(`${SITE}/old/sqlite`);
    expect(document.markdown).toContain("(https://fieldnotes.example.com/2025/images/sqlite-benchmark.png)");
  });

  test("a Chinese article comes out with its keywords as tags", async () => {
    const document = await fetchWeb("https://www.cnblogs.com/slowthink/p/18765432");
    expect(document.title).toBe("为什么我不再用番茄钟了");
    expect(document.tags).toEqual(["时间管理", "番茄工作法", "专注", "效率"]);
    expect(document.markdown).toContain("你呢？你用什么方法保持专注？");
  });

  test("a plain-text page is kept as text", async () => {
    const document = await fetchWeb(`${SITE}/notes.txt`);
    expect(document.title).toBe("Reading list");
    expect(document.markdown).toBe("# Reading list\n\n- SQLite docs\n- Litestream");
    expect(document.sourceUrl).toBe(`${SITE}/notes.txt`);
  });

  test("a page without a content type is read when it looks like HTML", async () => {
    const document = await fetchWeb(`${SITE}/no-type`);
    expect(document.title).toBe("Why SQLite Is Enough for Most Side Projects");
  });
});

describe("web failures when fetching", () => {
  test("a page without an article is permanent", async () => {
    const error = await failureOf(fetchWeb(`${SITE}/login`));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("No article text found on this page");
  });

  test("an image is permanent and names its type", async () => {
    const error = await failureOf(fetchWeb(`${SITE}/cover.png`));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("image/png");
    expect(error.message).toContain("not a web page");
  });

  test("a PDF is no page: the import is told to read it as a document, from its address", async () => {
    const document = await fetchWeb(`${SITE}/paper.pdf`);
    expect(document.linkedDocument).toEqual({ url: `${SITE}/paper.pdf`, kind: "pdf" });
    expect(document.markdown).toBe("");
  });

  for (const [name, path] of [
    ["HTTP 404", "/nowhere"],
    ["HTTP 410", "/gone"],
  ]) {
    test(`${name} is permanent: the page was not found`, async () => {
      const error = await failureOf(fetchWeb(`${SITE}${path}`));
      expect(error.permanent).toBe(true);
      expect(error.message).toContain("not found");
    });
  }

  for (const [name, path] of [
    ["HTTP 401", "/members-only"],
    ["HTTP 403", "/forbidden"],
  ]) {
    test(`${name} is permanent: the page needs a login, paste instead`, async () => {
      const error = await failureOf(fetchWeb(`${SITE}${path}`));
      expect(error.permanent).toBe(true);
      expect(error.message).toContain("needs a login");
      expect(error.message).toEndWith(PASTE_INSTEAD);
    });
  }

  for (const [name, path] of [
    ["HTTP 500", "/broken"],
    ["HTTP 503", "/overloaded"],
    ["HTTP 429", "/slow-down"],
  ]) {
    test(`${name} is transient, to be retried`, async () => {
      const error = await failureOf(fetchWeb(`${SITE}${path}`));
      expect(error.permanent).toBe(false);
      expect(error.message).toContain("Try again");
    });
  }

  test("another 4xx is permanent", async () => {
    const error = await failureOf(fetchWeb(`${SITE}/teapot`));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain("refused");
  });

  test("links that are not http(s) are refused before any request", async () => {
    const before = server.requests.length;
    for (const url of ["ftp://fieldnotes.example.com/file", "javascript:alert(1)", "not a url"]) {
      const error = await failureOf(fetchWeb(url));
      expect(error.permanent).toBe(true);
    }
    expect(server.requests.length).toBe(before);
  });

  test("a network failure is transient and hides the low-level cause", async () => {
    const error = await failureOf(
      fetchWeb(`${SITE}/2025/03/sqlite-is-enough/`, async () => {
        throw new Error("getaddrinfo ENOTFOUND fieldnotes.example.com");
      }),
    );
    expect(error.permanent).toBe(false);
    expect(error.message).not.toContain("ENOTFOUND");
  });
});
