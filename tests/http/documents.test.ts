import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { readPdf } from "../../src/modules/documents/pdf/read-pdf";
import { readPdfInThread } from "../../src/modules/documents/pdf/read-pdf-in-thread";
import type { Api } from "../support/api";
import { expectError } from "../support/api";
import { chromiumForThisFile } from "../support/browser";
import { buildDocx, buildEpub, characterErrorRate, printPdf, stripedPng, withPageLabels } from "../support/documents";
import { serverForThisFile } from "../support/server";
import { settleTask } from "../support/settle-task";
import { directoryForThisFile } from "../support/temporary-directory";

const browser = await chromiumForThisFile();
// Documents of up to 2 MiB, so the limit is quick to pass; loopback stands in for a site serving a PDF.
const { api } = await serverForThisFile({ DOCUMENT_MAX_MB: "2", IMPORT_ALLOW_PRIVATE_NETWORKS: "true" });
const alice = (await api.newUser("alice")).api;
const bob = (await api.newUser("bob")).api;

const PDF = "application/pdf";
const scratch = directoryForThisFile("rhizome-documents-");

/** What the handbook's pages say, paragraph by paragraph (its third page is a picture alone). */
const PAGES: string[][] = [
  [
    "Rhizome keeps every note you write and every page you import in one place, and it links them by the ideas they share so that a forgotten thought can be found again.",
    "The committee found the results extraordinary and asked for a second international review of the data before the report went out.",
    "文档导入功能可以把一份很长的PDF文件转换成一条笔记，每一页都以页码开头，页眉和页脚会被去掉，这样以后搜索和提问的时候就能准确地找到出处。",
  ],
  [
    "A second page begins here with a paragraph long enough to wrap over several lines of the printed page, so that its lines have to be joined again into one paragraph.",
    "第二页的中文段落同样很长，需要跨越好几行，读取的时候这些行要连在一起，中间不能加入空格，否则中文的词语就会被错误地分开。",
  ],
  [],
  ["The last page says goodbye in plain English, after a page that holds nothing but a picture."],
];

function handbookHtml(pages = PAGES, title = "The Printed Handbook"): string {
  const picture = Buffer.from(stripedPng(600, 800)).toString("base64");
  const body = pages
    .map((paragraphs, index) => {
      const content = paragraphs.length
        ? paragraphs.map((text) => `<p>${text.replace("extraordinary", "extra-<br>ordinary").replace("international", "inter-<br>national")}</p>`).join("")
        : `<img src="data:image/png;base64,${picture}" style="width:14cm">`;
      return `<section${index < pages.length - 1 ? ' style="break-after:page"' : ""}>${content}</section>`;
    })
    .join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">${title ? `<title>${title}</title>` : ""}<style>body{font:13pt serif} p{width:12cm;margin:0 0 14pt}</style></head><body>${body}</body></html>`;
}

const RUNNING = { header: "The Printed Handbook · Running Header", footer: 'Page <span class="pageNumber"></span> of <span class="totalPages"></span>' };
let handbook: Uint8Array<ArrayBuffer>;

beforeAll(async () => {
  handbook = await printPdf(browser, handbookHtml(), RUNNING);
});

function uploadDocument(client: Api, body: BodyInit, type: string, query = "") {
  return client.request("POST", `/api/tasks/document${query}`, { body, headers: { "content-type": type } });
}

async function importDocument(client: Api, body: BodyInit, type: string, query = "") {
  const created = await uploadDocument(client, body, type, query);
  expect(created.status).toBe(201);
  expect(created.body.platform).toBe("document");
  const task = await settleTask(client, created.body.id);
  expect(task.error).toBeNull();
  expect(task.status).toBe("completed");
  const note = (await client.get(`/api/notes/${task.note_id}`)).body;
  return { task, note };
}

/** The note's text page by page: the paragraphs after each `[p. N]` line. */
function pagesOf(content: string): Map<string, string[]> {
  const pages = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const block of content.split("\n\n")) {
    const marker = /^\[p\. ([^\]]+)\]$/.exec(block);
    if (marker) pages.set(marker[1]!, (current = []));
    else current?.push(block);
  }
  return pages;
}

describe("a PDF uploaded as a document", () => {
  test("becomes a note: each page begins with [p. N], paragraphs read in order with their lines joined (hyphens rejoined, Chinese without spaces), the running header and footer dropped, a page of only a picture kept as that picture, the original linked at the end", async () => {
    const { task, note } = await importDocument(alice, handbook, PDF);
    expect(task.url).toBeNull();
    expect(note.title).toBe("The Printed Handbook");
    expect(note.tags).toEqual(["document"]);
    expect(note.content).not.toContain("Running Header");
    expect(note.content).not.toMatch(/Page \d of \d/);
    const pages = pagesOf(note.content);
    expect([...pages.keys()]).toEqual(["1", "2", "3", "4"]);
    for (const [index, expected] of PAGES.entries()) {
      if (expected.length === 0) continue;
      const read = pages.get(String(index + 1))!.filter((block) => !block.startsWith("[original]"));
      expect(read).toHaveLength(expected.length);
      expect(characterErrorRate(expected.join("\n\n"), read.join("\n\n"))).toBeLessThanOrEqual(0.01);
    }
    expect(note.content).toContain("extraordinary and asked for a second international review");
    expect(note.content).toContain("文档导入功能可以把一份很长的PDF文件转换成一条笔记");

    // The page without text: its picture, stored, on the paragraph after its marker (where OCR reads it).
    const [picture] = pages.get("3")!;
    const pictureLink = /^!\[Page 3\]\(\/api\/files\/(\d+)\)$/.exec(picture!);
    expect(pictureLink).not.toBeNull();
    const image = await fetch(`${alice.baseUrl}/api/files/${pictureLink![1]}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(image.headers.get("content-disposition")).toBeNull();
    const png = new Uint8Array(await image.arrayBuffer());
    const view = new DataView(png.buffer);
    // Chromium keeps the picture at its own size (600 × 800); PDF.js decodes it as painted.
    expect([view.getUint32(16), view.getUint32(20)]).toEqual([600, 800]);

    // The original, linked at the end: served as a download, never shown in the page.
    const originalLink = /\n\n\[original\]\(\/api\/files\/(\d+)\)$/.exec(note.content);
    expect(originalLink).not.toBeNull();
    const original = await fetch(`${alice.baseUrl}/api/files/${originalLink![1]}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(original.status).toBe(200);
    expect(original.headers.get("content-type")).toBe(PDF);
    expect(original.headers.get("content-disposition")).toMatch(/^attachment; filename="file-\d+\.pdf"$/);
    expect(original.headers.get("x-content-type-options")).toBe("nosniff");
    expect(new Uint8Array(await original.arrayBuffer())).toEqual(handbook);
    const record = (await alice.get("/api/auth/me")).body.storage;
    expect(record.files).toBeGreaterThanOrEqual(2);
    expect(record.bytes).toBeGreaterThanOrEqual(handbook.length + png.length);

    // Another user sees neither the task nor the files.
    expectError(await bob.get(`/api/tasks/${task.id}`), 404, "NOT_FOUND");
    expectError(await bob.get(`/api/files/${originalLink![1]}`), 404, "NOT_FOUND");
    expectError(await bob.get(`/api/files/${pictureLink![1]}`), 404, "NOT_FOUND");
  });

  test("pages are named by the PDF's page labels when it has them (i, ii, then 1, 2)", async () => {
    const labelled = withPageLabels(handbook, [
      { from: 0, style: "r" },
      { from: 2, style: "D" },
    ]);
    const { note } = await importDocument(alice, labelled, PDF);
    expect([...pagesOf(note.content).keys()]).toEqual(["i", "ii", "1", "2"]);
    expect(note.content).toContain("![Page 1](/api/files/");
  });

  test("the title is `title`, else the document's own, else `filename`, else the time of upload", async () => {
    const untitled = await printPdf(browser, handbookHtml([PAGES[0]!], ""));
    expect((await importDocument(alice, handbook, PDF, "?title=%20Given%20title%20&filename=handbook.pdf")).note.title).toBe("Given title");
    expect((await importDocument(alice, handbook, PDF, "?filename=handbook.pdf")).note.title).toBe("The Printed Handbook");
    expect((await importDocument(alice, untitled, PDF, "?filename=notes%20of%20May.pdf")).note.title).toBe("notes of May.pdf");
    expect((await importDocument(alice, untitled, PDF)).note.title).toMatch(/^Document uploaded \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
  });
});

describe("asking about a document", () => {
  test("each passage says its page (the nearest `[p. N]` before it) and its picture (the nearest `[picture N]`), else null", async () => {
    const labelled = withPageLabels(handbook, [
      { from: 0, style: "r" },
      { from: 2, style: "D" },
    ]);
    const { note } = await importDocument(alice, labelled, PDF, "?title=Labelled%20handbook");
    const asked = async (question: string) => (await alice.post("/api/ask", { question, limit: 20 })).body.passages.filter((passage: any) => passage.note_id === note.id);
    const review = (await asked("second international review of the data")).find((passage: any) => passage.text.includes("international review"));
    expect(review.page).toBe("i");
    expect(review.picture).toBeNull();
    const goodbye = (await asked("the last page says goodbye in plain English")).find((passage: any) => passage.text.includes("goodbye"));
    expect(goodbye.page).toBe(2);

    const read = await alice.post("/api/notes", { title: "Zoo trip", content: "Our visit.\n\n## Text in pictures\n\n[picture 1](/api/files/1) A sign about penguins.\n\n[picture 2](/api/files/2) The giraffes eat acacia leaves at noon every day." });
    const giraffes = (await alice.post("/api/ask", { question: "When do the giraffes eat acacia leaves?" })).body.passages.find((passage: any) => passage.note_id === read.body.id);
    expect(giraffes).toMatchObject({ page: null, picture: 2 });
  });
});

describe("an EPUB uploaded as a document", () => {
  test("becomes a note of its chapters in reading order, each a `## <chapter title>` section, its pictures stored, its title its dc:title", async () => {
    const map = stripedPng(64, 48);
    const epub = buildEpub({
      title: "The Collected Book",
      chapters: [
        { title: "Opening", body: '<h1>Opening</h1><p>The first chapter has <em>emphasis</em> and <strong>weight</strong>.</p><p><img src="../images/map.png" alt="A map"/></p>' },
        { title: "第二章 归来", body: "<h1>第二章</h1><p>他终于回到了故乡。</p><table><tr><td>年份</td><td>事件</td></tr><tr><td>1921</td><td>归来</td></tr></table>" },
        { title: "Ending", body: '<p>Last words, and a <a href="https://example.com/more">link</a>.</p><h2>Afterword</h2><p>More to say.</p>' },
      ],
      pictures: { "map.png": map },
    });
    const { note } = await importDocument(alice, epub, "application/epub+zip");
    expect(note.title).toBe("The Collected Book");
    const body = note.content.replace(/\n\n\[original\]\(\/api\/files\/\d+\)$/, "");
    expect(body).toMatch(
      /^## Opening\n\nThe first chapter has _emphasis_ and \*\*weight\*\*\.\n\n!\[A map\]\(\/api\/files\/\d+\)\n\n## 第二章 归来\n\n### 第二章\n\n他终于回到了故乡。\n\n\| 年份 \| 事件 \|\n\| --- \| --- \|\n\| 1921 \| 归来 \|\n\n## Ending\n\nLast words, and a \[link\]\(https:\/\/example\.com\/more\)\.\n\n#### Afterword\n\nMore to say\.$/,
    );
    const pictureId = /!\[A map\]\(\/api\/files\/(\d+)\)/.exec(body)![1];
    const picture = await fetch(`${alice.baseUrl}/api/files/${pictureId}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(picture.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await picture.arrayBuffer())).toEqual(map);
    expect(note.content).toMatch(/\[original\]\(\/api\/files\/\d+\)$/);
  });
});

describe("a Word document (DOCX) uploaded as a document", () => {
  test("keeps its headings, lists, tables (the first row the header when Word marks none), bold, italic and links as Markdown, and its pictures as files", async () => {
    const logo = stripedPng(40, 40);
    const docx = buildDocx({
      title: "Quarterly Plan",
      blocks: [
        { heading: 1, text: "Goals" },
        { paragraph: ["We ship ", { text: "three", bold: true }, " things, ", { text: "carefully", italic: true }, ", as the ", { text: "roadmap", link: "https://example.com/roadmap" }, " says."] },
        { bullet: "Documents" },
        { bullet: "Pictures" },
        { numbered: "Plan" },
        { numbered: "Build" },
        { heading: 2, text: "Numbers" },
        { table: [["Team", "People"], ["Core", "4"], ["App", "3"]] },
        { table: [["Quarter", "Goal"], ["Q1", "Import"]], headerRow: true },
        { picture: logo, alt: "Our logo" },
      ],
    });
    const { note } = await importDocument(alice, docx, "application/vnd.openxmlformats-officedocument.wordprocessingml.document");
    expect(note.title).toBe("Quarterly Plan");
    const body = note.content.replace(/\n\n\[original\]\(\/api\/files\/\d+\)$/, "");
    expect(body).toMatch(
      /^# Goals\n\nWe ship \*\*three\*\* things, _carefully_, as the \[roadmap\]\(https:\/\/example\.com\/roadmap\) says\.\n\n- Documents\n- Pictures\n\n1\. Plan\n2\. Build\n\n## Numbers\n\n\| Team \| People \|\n\| --- \| --- \|\n\| Core \| 4 \|\n\| App \| 3 \|\n\n\| Quarter \| Goal \|\n\| --- \| --- \|\n\| Q1 \| Import \|\n\n!\[Our logo\]\(\/api\/files\/\d+\)$/,
    );
    const pictureId = /!\[Our logo\]\(\/api\/files\/(\d+)\)/.exec(body)![1];
    const picture = await fetch(`${alice.baseUrl}/api/files/${pictureId}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(new Uint8Array(await picture.arrayBuffer())).toEqual(logo);
  });
});

describe("Markdown, text and HTML uploaded as documents", () => {
  test("are read as pasted content is; the title is a Markdown file's first heading, an HTML page's title, else `filename`; the original is kept as a download", async () => {
    const markdown = await importDocument(alice, "# Reading list\n\n- *Thinking, Fast and Slow*\n- 《活着》\n", "text/markdown", "?filename=list.md");
    expect(markdown.note.title).toBe("Reading list");
    expect(markdown.note.content).toMatch(/^# Reading list\n\n- \*Thinking, Fast and Slow\*\n- 《活着》\n\n\[original\]\(\/api\/files\/(\d+)\)$/);

    const text = await importDocument(alice, "Plain words, first line.\nSecond line.", "text/plain", "?filename=notes.txt");
    expect(text.note.title).toBe("notes.txt");
    expect(text.note.content).toStartWith("Plain words, first line.\nSecond line.");

    const page = `<!doctype html><html><head><title>Field Notes</title><script>alert(1)</script></head><body><article><h1>Field Notes</h1><p>${"The heron waited in the shallows for a long time before it struck. ".repeat(6)}</p></article></body></html>`;
    const html = await importDocument(alice, page, "text/html");
    expect(html.note.title).toBe("Field Notes");
    expect(html.note.content).toContain("The heron waited in the shallows");
    expect(html.note.content).not.toContain("alert");
    const original = /\[original\]\(\/api\/files\/(\d+)\)$/.exec(html.note.content)![1];
    const served = await fetch(`${alice.baseUrl}/api/files/${original}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(served.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(served.headers.get("content-disposition")).toBe(`attachment; filename="file-${original}.html"`);
    expect(served.headers.get("content-security-policy")).toContain("sandbox");
    expect(await served.text()).toBe(page);
  });

  test("a document past the 1 MiB a note holds keeps its beginning, cut at a paragraph, with a line saying so; the task's message says so too", async () => {
    const paragraph = (n: number) => `Paragraph ${n}: ${"many words of a very long text ".repeat(10).trim()}.`;
    const long = Array.from({ length: 5_000 }, (_, n) => paragraph(n)).join("\n\n");
    expect(Buffer.byteLength(long)).toBeGreaterThan(1.4 * 1024 * 1024);
    const { task, note } = await importDocument(alice, long, "text/plain", "?title=Long");
    expect(Buffer.byteLength(note.content)).toBeLessThanOrEqual(1024 * 1024);
    expect(task.message).toContain("first 1 MiB");
    const blocks = note.content.split("\n\n");
    expect(blocks.at(-1)).toMatch(/^\[original\]\(\/api\/files\/\d+\)$/);
    expect(blocks.at(-2)).toMatch(/^_The document continues: a note holds at most 1 MiB/);
    const last = blocks.at(-3)!;
    expect(last).toBe(paragraph(Number(/^Paragraph (\d+):/.exec(last)![1])));
  });

  test("a PDF past the room stops at a paragraph, and says after which page", async () => {
    const file = path.join(scratch, "handbook.pdf");
    fs.writeFileSync(file, handbook);
    const stored: string[] = [];
    const reading = await readPdf(file, {
      signal: new AbortController().signal,
      maxBytes: 500,
      maxPictures: 50,
      storePicture: async (_png, page) => (stored.push(page), `/api/files/${stored.length}`),
    });
    expect(reading.pageCount).toBe(4);
    expect(reading.cutAfter).toBe("1");
    expect(Buffer.byteLength(reading.markdown)).toBeLessThanOrEqual(500);
    expect(reading.markdown).toStartWith("[p. 1]\n\nRhizome keeps every note");
    expect(stored).toEqual([]);
  });
});

describe("a PDF's reading thread", () => {
  test("keeps the pictures it finds through the caller and reports progress; a PDF still being read past the hard limit has its thread ended and fails", async () => {
    const file = path.join(scratch, "threaded.pdf");
    fs.writeFileSync(file, handbook);
    const pages: string[] = [];
    const progress: number[] = [];
    const options = {
      signal: new AbortController().signal,
      maxBytes: 100_000,
      maxPictures: 50,
      storePicture: async (png: Uint8Array, page: string) => (pages.push(`${page}:${png.length > 1000}`), "/api/files/77"),
      onProgress: (done: number) => void progress.push(done),
    };
    const reading = await readPdfInThread(file, options, 60_000);
    expect(reading.markdown).toContain("[p. 3]\n\n![Page 3](/api/files/77)\n\n[p. 4]");
    expect(pages).toEqual(["3:true"]);
    expect(progress).toEqual([1, 2, 3, 4]);
    const slow = readPdfInThread(file, options, 1);
    await expect(slow).rejects.toThrow("took longer than");
  });
});

describe("what a document upload refuses", () => {
  test("another type is a 415, and so are bytes that are not what the type says; nothing is kept", async () => {
    const before = (await alice.get("/api/tasks")).body.total;
    expectError(await uploadDocument(alice, handbook, "image/png"), 415, "UNSUPPORTED_MEDIA_TYPE");
    expectError(await uploadDocument(alice, handbook, "application/octet-stream"), 415, "UNSUPPORTED_MEDIA_TYPE");
    expectError(await uploadDocument(alice, "just words, not a PDF", PDF), 415, "UNSUPPORTED_MEDIA_TYPE");
    expectError(await uploadDocument(alice, handbook, "application/epub+zip"), 415, "UNSUPPORTED_MEDIA_TYPE");
    expectError(await uploadDocument(alice, handbook, "application/vnd.openxmlformats-officedocument.wordprocessingml.document"), 415, "UNSUPPORTED_MEDIA_TYPE");
    expectError(await uploadDocument(alice, handbook, "text/plain"), 415, "UNSUPPORTED_MEDIA_TYPE");
    expect((await alice.get("/api/tasks")).body.total).toBe(before);
  });

  test("past DOCUMENT_MAX_MB is a 413, by Content-Length or as it streams", async () => {
    const big = new Uint8Array(3 * 1024 * 1024);
    big.set(Buffer.from("%PDF-1.4\n"));
    const declared = await uploadDocument(alice, big, PDF);
    expectError(declared, 413, "PAYLOAD_TOO_LARGE");
    expect(declared.body.message).toContain("2 MiB");
    const streamed = await fetch(`${alice.baseUrl}/api/tasks/document`, {
      method: "POST",
      headers: { authorization: `Bearer ${alice.token}`, "content-type": PDF },
      body: new ReadableStream({
        start(controller) {
          for (let at = 0; at < big.length; at += 256 * 1024) controller.enqueue(big.slice(at, at + 256 * 1024));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  test("a title over 500 characters is a 400; no token is a 401", async () => {
    expectError(await uploadDocument(alice, handbook, PDF, `?title=${"x".repeat(501)}`), 400, "BAD_REQUEST");
    expectError(await uploadDocument(alice.withToken(undefined), handbook, PDF), 401, "UNAUTHORIZED");
  });
});

describe("a web import whose link answers with a PDF", () => {
  const site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) => (new URL(request.url).pathname === "/papers/handbook.pdf" ? new Response(handbook, { headers: { "content-type": "application/pdf" } }) : new Response("not found", { status: 404 })),
  });
  afterAll(() => site.stop(true));

  test("takes the PDF path: the note holds the pages, the original and the link", async () => {
    const url = `http://127.0.0.1:${site.port}/papers/handbook.pdf`;
    const created = await alice.post("/api/tasks", { url });
    expect(created.status).toBe(201);
    const task = await settleTask(alice, created.body.id);
    expect(task.error).toBeNull();
    expect(task.platform).toBe("web");
    const note = (await alice.get(`/api/notes/${task.note_id}`)).body;
    expect(note.title).toBe("The Printed Handbook");
    expect([...pagesOf(note.content).keys()]).toEqual(["1", "2", "3", "4"]);
    expect(note.content).toMatch(/\[original\]\(\/api\/files\/\d+\)\n\n---\n\nSource: <http:\/\/127\.0\.0\.1:\d+\/papers\/handbook\.pdf>\n?$/);
    expect(note.source).toMatchObject({ platform: "web", url });
  });
});
