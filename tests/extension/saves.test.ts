import { beforeAll, afterAll, describe, expect, test } from "bun:test";
import { drawIcon } from "../../src/viewer/icons";
import { createAccessToken } from "../support/access-tokens";
import { extensionBrowserForThisFile } from "../support/extension-browser";
import { readFixture } from "../support/platform-fixtures";
import { serverForThisFile } from "../support/server";
import { settleTask } from "../support/settle-task";
import { until } from "../support/until";

// The extension in Chromium, loaded unpacked, saving to a real server: a page whose text only its
// script writes, a link, a selection, an image only a cookie of this browser unlocks, and a WeChat
// article saved from its own address (mp.weixin.qq.com, served by Playwright from a saved page).
// Saves are driven as the contract says tests drive them: runtime messages to the service worker,
// the same code the toolbar button, the shortcut and the menu items run.

const browser = await extensionBrowserForThisFile();
const { server, api } = await serverForThisFile({ IMPORT_ALLOW_PRIVATE_NETWORKS: "true" });
const alice = await api.newUser("clipalice");
const RENDERED = "This paragraph exists only after the page's script ran: the anchoring effect pulls estimates toward a first number.";
const CHART = drawIcon(64, false);
const imageRequests: { path: string; cookie: string | null }[] = [];
let site: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  const html = (body: string) => new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const { pathname } = new URL(request.url);
      if (pathname === "/rendered") {
        return html(`<!doctype html><html><head><title>Rendered by script</title></head><body><main id="app"></main>
<script>
  const article = document.createElement("article");
  article.innerHTML = "<h1>Rendered by script</h1><p>${RENDERED}</p><p>A second paragraph, also written by the script, so the page has an article's length and shape.</p>";
  document.getElementById("app").append(article);
</script></body></html>`);
      }
      if (pathname === "/blog/sqlite") return html(readFixture("web/blog-article.html"));
      if (pathname === "/quotes") {
        return html(`<!doctype html><html><head><title>Quotes [worth] keeping</title></head><body>
<p>Before the quote.</p><blockquote id="quote"><p>Nothing in life is as important as you think it is</p><p>while you are thinking about it.</p></blockquote><p>After it.</p></body></html>`);
      }
      if (pathname === "/gallery") {
        return html(`<!doctype html><html><head><title>A private gallery</title></head><body>
<img id="chart" src="/private/chart.png" alt="Quarterly chart"><img id="locked" src="/private/locked.png" alt="Locked"></body></html>`);
      }
      if (pathname.startsWith("/private/")) {
        const cookie = request.headers.get("cookie");
        imageRequests.push({ path: pathname, cookie });
        // The chart needs this browser's session cookie; the locked image needs one nobody has.
        const allowed = pathname === "/private/chart.png" ? /\bgallery_session=letmein\b/.test(cookie ?? "") : false;
        return allowed ? new Response(CHART, { headers: { "content-type": "image/png" } }) : new Response("forbidden", { status: 403 });
      }
      return new Response("not found", { status: 404 });
    },
  });
});
afterAll(() => site?.stop(true));

const siteUrl = (path: string) => `http://127.0.0.1:${site.port}${path}`;

async function openTab(url: string) {
  const page = await browser.context.newPage();
  await page.goto(url);
  return { page, tabId: await browser.tabIdOf(page) };
}

async function noteOfTask(taskId: number, client = alice.api) {
  const task = await settleTask(client, taskId);
  expect(task).toMatchObject({ status: "completed", error: null });
  return { task, note: (await client.get(`/api/notes/${task.note_id}`)).body };
}

describe("the options page", () => {
  test("takes a server address and a pasted access token by their labels, and says whom it saves as", async () => {
    const token = await createAccessToken(alice.api, ["imports", "notes:read", "notes:write"]);
    const options = await browser.openOptions();
    await options.getByLabel("Server address").fill(`${server.url}/`);
    await options.getByLabel("Access token").fill(token);
    await options.getByRole("button", { name: "Save" }).click();
    await until(async () => (await options.getByRole("status").textContent())?.includes(alice.username), { what: "the status line to name the user", timeoutMs: 15_000 });
    expect(await options.getByRole("status").textContent()).toBe(`Saving to ${server.url} as ${alice.username} (using a pasted access token).`);
    // The address was tidied (no trailing slash); the token field is emptied, never shown again.
    expect(await options.getByLabel("Server address").inputValue()).toBe(server.url);
    expect(await options.getByLabel("Access token").inputValue()).toBe("");
    await options.close();
  });

  test("the button and the shortcut are the contract's", async () => {
    expect(await browser.worker.evaluate(() => (globalThis as any).chrome.action.getTitle({}))).toBe("Save to Rhizome");
    const commands = await browser.worker.evaluate(() => (globalThis as any).chrome.commands.getAll());
    expect(commands.find((command: { name: string }) => command.name === "save-page")).toMatchObject({ shortcut: "Alt+Shift+S" });
  });
});

describe("saving", () => {
  test("a page whose text its script wrote: the page as shown goes to the server, and its note has that text", async () => {
    const { page, tabId } = await openTab(siteUrl("/rendered"));
    await page.getByText(RENDERED).waitFor();
    const answer = await browser.send({ type: "save-page", tabId });
    expect(Object.keys(answer)).toEqual(["task_id"]);
    const { task, note } = await noteOfTask(answer.task_id);
    expect(task).toMatchObject({ platform: "web", url: siteUrl("/rendered") });
    expect(note.title).toBe("Rendered by script");
    expect(note.content).toContain(RENDERED);
    expect(note.tags[0]).toBe("web");
    expect(note.source).toMatchObject({ platform: "web", url: siteUrl("/rendered") });

    // The badge follows the task to ✓, and a notification offers the note.
    await until(() => browser.badgeOf(tabId), { what: "the badge to show ✓", done: (text) => text === "✓", timeoutMs: 15_000 });
    await until(
      async () => Object.keys(await browser.worker.evaluate(() => (globalThis as any).chrome.notifications.getAll())).some((id) => id.startsWith(`rhizome-note:${task.note_id}:`)),
      { what: "a notification offering the note", timeoutMs: 5_000 },
    );

    // The server fetching the same address sees no script's work: no note with that text.
    const fetched = await settleTask(alice.api, (await alice.api.post("/api/tasks", { url: siteUrl("/rendered") })).body.id);
    if (fetched.status === "completed") expect((await alice.api.get(`/api/notes/${fetched.note_id}`)).body.content).not.toContain(RENDERED);
    await page.close();
  });

  test("a link: the server imports it", async () => {
    const answer = await browser.send({ type: "save-link", url: siteUrl("/blog/sqlite") });
    expect(Object.keys(answer)).toEqual(["task_id"]);
    const { task, note } = await noteOfTask(answer.task_id);
    expect(task).toMatchObject({ platform: "web", url: siteUrl("/blog/sqlite") });
    expect(note.source.platform).toBe("web");
    expect(note.content.length).toBeGreaterThan(200);
  });

  test("a selection: a new note quoting it, crediting the page, tagged clipped", async () => {
    const { page, tabId } = await openTab(siteUrl("/quotes"));
    await page.evaluate(() => {
      const range = document.createRange();
      range.selectNodeContents(document.getElementById("quote")!);
      const selection = window.getSelection()!;
      selection.removeAllRanges();
      selection.addRange(range);
    });
    const answer = await browser.send({ type: "save-selection", tabId });
    expect(Object.keys(answer)).toEqual(["note_id"]);
    const note = (await alice.api.get(`/api/notes/${answer.note_id}`)).body;
    expect(note.title).toBe("Quotes [worth] keeping");
    expect(note.tags).toEqual(["clipped"]);
    expect(note.content).toMatch(/^> Nothing in life is as important as you think it is\n(>\n)*> while you are thinking about it\.\n\n/);
    expect(note.content.trimEnd().split("\n").at(-1)).toBe(`— [Quotes \\[worth\\] keeping](${siteUrl("/quotes")})`);
    expect(await browser.badgeOf(tabId)).toBe("✓");

    // Nothing selected: an error, and no note.
    await page.evaluate(() => window.getSelection()!.removeAllRanges());
    const before = (await alice.api.get("/api/notes?tag=clipped")).body.total;
    const empty = await browser.send({ type: "save-selection", tabId });
    expect(empty.error).toContain("Nothing is selected");
    expect(await browser.badgeOf(tabId)).toBe("!");
    expect((await alice.api.get("/api/notes?tag=clipped")).body.total).toBe(before);
    await page.close();
  });

  test("an image only this browser's cookie unlocks: stored as a file, in a note that shows it with the page's link", async () => {
    await browser.context.addCookies([{ name: "gallery_session", value: "letmein", url: siteUrl("/") }]);
    const { page, tabId } = await openTab(siteUrl("/gallery"));
    imageRequests.length = 0;
    const answer = await browser.send({ type: "save-image", url: siteUrl("/private/chart.png"), tabId });
    expect(Object.keys(answer)).toEqual(["note_id"]);
    // The extension's download carried the page's cookie.
    expect(imageRequests.some((request) => request.path === "/private/chart.png" && /gallery_session=letmein/.test(request.cookie ?? ""))).toBe(true);

    const note = (await alice.api.get(`/api/notes/${answer.note_id}`)).body;
    expect(note.title).toBe("A private gallery");
    expect(note.tags).toEqual(["clipped"]);
    const image = /^!\[Quarterly chart\]\((\/api\/files\/\d+)\)\n\n— \[A private gallery\]\((.+)\)\n$/.exec(note.content);
    expect(image).not.toBeNull();
    expect(image![2]).toBe(siteUrl("/gallery"));
    const file = await fetch(`${server.url}${image![1]}`, { headers: { authorization: `Bearer ${alice.api.token}` } });
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await file.arrayBuffer()).equals(Buffer.from(CHART))).toBe(true);

    // An image the browser has no cookie for is refused by its site: an error, no note.
    const locked = await browser.send({ type: "save-image", url: siteUrl("/private/locked.png"), tabId });
    expect(locked.error).toContain("403");
    await page.close();
  });

  test("a WeChat article saved from mp.weixin.qq.com makes the note a server import of the same page makes", async () => {
    const articleUrl = "https://mp.weixin.qq.com/s/Xk2pQb7Rz9LmNcT4vW8yAg";
    const saved = readFixture("wechat/article.html");
    // The tab's address really is mp.weixin.qq.com: Playwright answers it with the saved page.
    await browser.context.route("https://mp.weixin.qq.com/**", (route) => route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: saved }));
    const { page, tabId } = await openTab(articleUrl);
    expect(page.url()).toBe(articleUrl);
    const answer = await browser.send({ type: "save-page", tabId });
    const { task, note: clipped } = await noteOfTask(answer.task_id);
    expect(task.platform).toBe("wechat");

    // The same page imported by the server, for another user (one user's second import would find the first note).
    const bob = await api.newUser("clipbob");
    const imported = await bob.api.post("/api/tasks", { platform: "wechat", content: saved, url: articleUrl });
    const { note: reference } = await noteOfTask(imported.body.id, bob.api);
    expect({ title: clipped.title, content: clipped.content, tags: clipped.tags }).toEqual({ title: reference.title, content: reference.content, tags: reference.tags });
    expect(clipped.source).toEqual(reference.source);
    expect(clipped.tags[0]).toBe("wechat");
    await page.close();
  });
});
