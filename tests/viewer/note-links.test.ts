// Links in a note shown by the app at `/`, in real headless Chromium: only http(s) and mailto links
// (and the page's own wikilinks) become links. `javascript:` in any disguise (any case, entities,
// whitespace, a reference, an autolink, raw HTML) and other schemes stay text: no such href exists,
// and clicking them does nothing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { Api } from "../support/api";
import { launchChromium, watchPage } from "../support/browser";
import { startTestServer, type TestServer } from "../support/server";

const HOSTILE: [label: string, markdown: string][] = [
  ["plain", "[plain](javascript:alert(1))"],
  ["upper", "[upper](JAVASCRIPT:alert(1))"],
  ["mixed", "[mixed](JaVaScRiPt:alert(document.domain))"],
  ["entity", "[entity](&#106;avascript:alert(1))"],
  ["hex entity", "[hex entity](&#x6A;avascript&#x3A;alert(1))"],
  ["named colon", "[named colon](javascript&colon;alert(1))"],
  ["tab", "[tab](<java\tscript:alert(1)>)"],
  ["leading space", "[leading space](< javascript:alert(1)>)"],
  ["control", "[control](\u0001javascript:alert(1))"],
  ["percent", "[percent](javascript%3Aalert(1))"],
  ["reference", "[reference][evil]\n\n[evil]: javascript:alert(1)"],
  ["vbscript", "[vbscript](vbscript:msgbox(1))"],
  ["data", "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)"],
  ["autolink", "<javascript:alert(1)>"],
  ["raw", '<a href="javascript:alert(1)">raw</a>'],
];

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  server = await startTestServer();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

test("a note's javascript: links, however disguised, become no href and do nothing when clicked; http(s) and mailto links stay links", async () => {
  const alice = await new Api(server.url).newUser("links");
  const content = ["Safe: [web](https://example.com/page) and [mail](mailto:someone@example.com).", ...HOSTILE.map(([, markdown]) => markdown)].join("\n\n");
  expect((await alice.api.post("/api/notes", { title: "Links", content, tags: [] })).status).toBe(201);

  const context = await browser.newContext();
  const page = await context.newPage();
  const watch = watchPage(page);
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  const popups: string[] = [];
  context.on("page", (opened) => popups.push(opened.url()));
  await page.goto(`${server.url}/`);
  await page.getByLabel("Username").fill(alice.username);
  await page.getByLabel("Password").fill(alice.password);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("list", { name: "Notes", exact: true }).getByRole("button", { name: /^Links/ }).click();
  const note = page.getByRole("article", { name: "Links", exact: true });
  await note.getByText("leading space").waitFor();

  // Positive control: the safe links are links, with their own addresses.
  expect(await note.getByRole("link", { name: "web" }).getAttribute("href")).toBe("https://example.com/page");
  expect(await note.getByRole("link", { name: "mail" }).getAttribute("href")).toBe("mailto:someone@example.com");
  // Every href the note holds, as the browser resolves it: http(s) or mailto only.
  const hrefs = await note.locator("[href], [src], [action], [formaction], [xlink\\:href]").evaluateAll((nodes) =>
    nodes.map((node) => (node as HTMLAnchorElement).href || node.getAttribute("href") || node.getAttribute("src") || ""),
  );
  expect(hrefs.filter((href) => !/^(https?:|mailto:)/.test(href))).toEqual([]);
  expect(await note.locator("a").count()).toBe(2);

  const before = page.url();
  for (const [label] of HOSTILE.filter(([label]) => label !== "raw" && label !== "autolink")) {
    // Text where it was a link, or the Markdown as written where it never parsed as one.
    const shown = note.getByText(label, { exact: true }).or(note.getByText(`[${label}](`));
    expect(await shown.count()).toBe(1);
    await shown.click();
  }
  // The raw HTML and the autolink show as their text.
  expect(await note.textContent()).toContain('<a href="javascript:alert(1)">raw</a>');
  expect(await note.textContent()).toContain("javascript:alert(1)");
  await note.getByText('<a href="javascript:alert(1)">raw</a>').click();
  // Let anything a click started run its course: one round trip to the page and back.
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
  expect(page.url()).toBe(before);
  expect(dialogs).toEqual([]);
  expect(popups).toEqual([]);
  await context.close();
  expect(watch.errors).toEqual([]);
  expect(watch.requests.filter((url) => !url.startsWith(`${server.url}/`) && !url.startsWith("blob:"))).toEqual([]);
});
