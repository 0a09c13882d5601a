// The installable app ("Save from anywhere"), in real headless Chromium: the manifest and service
// worker make `/` installable (DevTools' installability errors are empty); the shell opens without
// a network and the notes already seen can be read; a note edited offline is marked `Waiting to
// sync` and arrives once online; shares of a link, text and a picture POSTed to /share are kept by
// the worker and turned into an import or notes by the logged-in app; `/save` imports with the
// login kept on this device; `Keep me logged in` survives a new tab and `Log out` forgets it.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS, CHROMIUM_PATH, chromiumForThisFile, logIn, watchPage, type PageWatch } from "../support/browser";
import { readFixture } from "../support/platform-fixtures";
import { serverForThisFile } from "../support/server";
import { directoryForThisFile } from "../support/temporary-directory";
import { until } from "../support/until";

const browser = await chromiumForThisFile();
const { server, api } = await serverForThisFile({ IMPORT_ALLOW_PRIVATE_NETWORKS: "true" });
const ARTICLE = readFixture("web", "blog-article.html");
const site = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (request) =>
    new URL(request.url).pathname === "/blog/sqlite" ? new Response(ARTICLE, { headers: { "content-type": "text/html; charset=utf-8" } }) : new Response("Not Found", { status: 404 }),
});
afterAll(() => site.stop(true));
const ARTICLE_URL = `http://127.0.0.1:${site.port}/blog/sqlite`;
// A 1×1 PNG.
const PIXEL = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

interface Opened {
  context: BrowserContext;
  watches: PageWatch[];
}
const opened: Opened[] = [];
/** Chromium logs each non-2xx answer, and each request made offline, as a console error; a test names those it provokes. */
let expectedFailures: RegExp[] = [];

afterEach(async () => {
  const allowed = [...expectedFailures, /ERR_INTERNET_DISCONNECTED/];
  expectedFailures = [];
  for (const { context, watches } of opened.splice(0)) {
    await context.close().catch(() => {});
    for (const watch of watches) {
      expect(watch.requests.filter((url) => !url.startsWith(`${server.url}/`) && !/^(blob|data):/.test(url))).toEqual([]);
      expect(watch.errors.filter((error) => !allowed.some((pattern) => pattern.test(`${error.text} ${error.url}`)))).toEqual([]);
    }
  }
});

async function newContext(): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  opened.push({ context, watches: [] });
  return context;
}

async function openPage(context: BrowserContext, path = "/"): Promise<Page> {
  const page = await context.newPage();
  opened.find((item) => item.context === context)!.watches.push(watchPage(page));
  page.on("dialog", (dialog) => void dialog.accept());
  await page.goto(`${server.url}${path}`);
  return page;
}

const notesLoaded = (page: Page) => page.locator('ul[aria-label="Notes"][data-loaded]').waitFor();
const notesList = (page: Page) => page.getByRole("list", { name: "Notes", exact: true });

/** The page is controlled by the worker, with the shell precached. */
async function workerInCharge(page: Page) {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) await new Promise((resolve) => navigator.serviceWorker.addEventListener("controllerchange", resolve, { once: true }));
  });
}

describe("installable", () => {
  test("the manifest names the app, its icons and the share target; Chromium reports no installability error", async () => {
    const manifest = await fetch(`${server.url}/manifest.webmanifest`);
    expect(manifest.headers.get("content-type")).toStartWith("application/manifest+json");
    const body = await manifest.json();
    expect(body).toMatchObject({ name: "Rhizome", start_url: "/", scope: "/", display: "standalone" });
    expect(body.share_target).toEqual({
      action: "/share",
      method: "POST",
      enctype: "multipart/form-data",
      params: { title: "title", text: "text", url: "url", files: [{ name: "files", accept: ["image/*", "audio/*", "video/mp4", "application/pdf"] }] },
    });
    const sizes = body.icons.map((icon: { sizes: string; purpose: string }) => `${icon.sizes} ${icon.purpose}`);
    expect(sizes).toEqual(expect.arrayContaining(["192x192 any", "512x512 any", "512x512 maskable"]));
    for (const icon of body.icons) {
      const png = new Uint8Array(await (await fetch(`${server.url}${icon.src}`)).arrayBuffer());
      expect([...png.subarray(1, 4)]).toEqual([0x50, 0x4e, 0x47]);
      const side = Number(icon.sizes.split("x")[0]);
      expect(new DataView(png.buffer).getUint32(16)).toBe(side);
    }

    // A profile of its own: Chromium never offers to install from an incognito context (newContext's).
    const context = await chromium.launchPersistentContext(directoryForThisFile("rhizome-profile-"), { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, viewport: { width: 390, height: 844 } });
    opened.push({ context, watches: [] });
    const page = await openPage(context);
    await workerInCharge(page);
    const devtools = await context.newCDPSession(page);
    const { installabilityErrors } = (await devtools.send("Page.getInstallabilityErrors")) as { installabilityErrors: unknown[] };
    expect(installabilityErrors).toEqual([]);
  });

  test("without its worker (a first visit), POST /share is a 303 to the app", async () => {
    const form = new FormData();
    form.set("url", "https://example.com/");
    const response = await fetch(`${server.url}/share`, { method: "POST", body: form, redirect: "manual" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/");
  });
});

describe("offline", () => {
  test("the app opens offline with the notes it has seen; an offline edit waits, marked, and arrives when back online", async () => {
    const alice = await api.newUser("offline");
    const first = await alice.api.post("/api/notes", { title: "Read on the train", content: "Seen **before** the tunnel.", tags: ["travel"] });
    await alice.api.post("/api/notes", { title: "Listed only", content: "Its text is fetched while the page is idle." });
    const context = await newContext();
    const page = await openPage(context);
    await logIn(page, alice);
    await notesLoaded(page);
    await notesList(page).getByRole("button", { name: /^Read on the train/ }).click();
    await page.getByRole("article", { name: "Read on the train" }).waitFor();
    await workerInCharge(page);

    await context.setOffline(true);
    const shown = Date.now();
    await page.reload();
    await notesLoaded(page);
    expect(Date.now() - shown).toBeLessThan(10_000);
    expect(await notesList(page).locator(".note-item-title").allTextContents()).toEqual(["Listed only", "Read on the train"]);
    await notesList(page).getByRole("button", { name: /^Read on the train/ }).click();
    const article = page.getByRole("article", { name: "Read on the train" });
    await article.getByText("before").waitFor();
    expect(await article.textContent()).toContain("kept on this device");

    await page.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("Content", { exact: true }).fill("Written in the tunnel.");
    await page.getByRole("button", { name: "Save" }).click();
    await notesList(page).getByRole("button", { name: /^Read on the train/ }).getByText("Waiting to sync").waitFor();
    expect((await alice.api.get(`/api/notes/${first.body.id}`)).body.content).toBe("Seen **before** the tunnel.");

    await context.setOffline(false);
    await until(async () => (await alice.api.get(`/api/notes/${first.body.id}`)).body.content === "Written in the tunnel.", { what: "the offline edit to arrive", timeoutMs: 20_000 });
    await until(async () => (await notesList(page).getByText("Waiting to sync").count()) === 0, { what: "the mark to go", timeoutMs: 20_000 });
  });

  test("an offline edit of a note changed meanwhile elsewhere shows Conflict with Keep mine", async () => {
    const bob = await api.newUser("offconflict");
    const made = await bob.api.post("/api/notes", { title: "Shared plan", content: "Version one." });
    const context = await newContext();
    const page = await openPage(context);
    await logIn(page, bob);
    await notesLoaded(page);
    await notesList(page).getByRole("button", { name: /^Shared plan/ }).click();
    await page.getByRole("article", { name: "Shared plan" }).waitFor();
    await workerInCharge(page);
    await context.setOffline(true);
    await page.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("Content", { exact: true }).fill("Mine, offline.");
    await page.getByRole("button", { name: "Save" }).click();
    await notesList(page).getByText("Waiting to sync").waitFor();
    expect((await bob.api.put(`/api/notes/${made.body.id}`, { content: "Theirs, online." })).status).toBe(200);

    expectedFailures = [/409/];
    await context.setOffline(false);
    await page.getByText("Conflict", { exact: true }).waitFor({ timeout: 20_000 });
    expect(await page.getByLabel("Content", { exact: true }).inputValue()).toBe("Mine, offline.");
    await page.getByRole("button", { name: "Keep mine" }).click();
    await until(async () => (await bob.api.get(`/api/notes/${made.body.id}`)).body.content === "Mine, offline.", { what: "Keep mine to save" });
  });
});

describe("sharing to the app", () => {
  /** What a share sheet does: a multipart POST navigation to the manifest's action. */
  async function share(page: Page, fields: Record<string, string>, files: { name: string; mimeType: string; buffer: Buffer }[] = []) {
    await page.evaluate((values) => {
      const form = document.createElement("form");
      form.method = "post";
      form.action = "/share";
      form.enctype = "multipart/form-data";
      form.id = "share-sheet";
      for (const [name, value] of Object.entries(values)) {
        const input = document.createElement("textarea"); // keeps a shared text's line breaks
        input.name = name;
        input.value = value;
        form.append(input);
      }
      const picker = document.createElement("input");
      picker.type = "file";
      picker.name = "files";
      picker.multiple = true;
      form.append(picker);
      document.body.append(form);
    }, fields);
    if (files.length) await page.locator("#share-sheet input[type=file]").setInputFiles(files);
    await Promise.all([page.waitForURL(/\/\?shared=1$/), page.evaluate(() => (document.getElementById("share-sheet") as HTMLFormElement).submit())]);
  }

  test("a link becomes an import, text a note tagged shared, a picture a note showing it; each said on the status line", async () => {
    const carol = await api.newUser("sharer");
    const context = await newContext();
    const page = await openPage(context);
    await page.getByLabel("Keep me logged in on this device").check();
    await logIn(page, carol);
    await notesLoaded(page);
    await workerInCharge(page);

    await share(page, { title: "", text: `Worth reading ${ARTICLE_URL}`, url: "" });
    await notesLoaded(page);
    await page.getByRole("status").filter({ hasText: "Saved to Imports" }).waitFor({ timeout: 15_000 });
    const tasks = await until(async () => (await carol.api.get("/api/tasks")).body.items.filter((task: { url: string }) => task.url === ARTICLE_URL), { what: "the shared link's task", done: (items) => items.length === 1 });
    expect(tasks[0].platform).toBe("web");

    await share(page, { title: "", text: "A thought from the bus\nIt continues here.", url: "" });
    await page.getByRole("status").filter({ hasText: "Saved as a note" }).waitFor({ timeout: 15_000 });
    const notes = await until(async () => (await carol.api.get("/api/notes?tag=shared")).body.items, { what: "the shared text's note", done: (items) => items.length === 1 });
    expect(notes[0].title).toBe("A thought from the bus");

    await share(page, { title: "Whiteboard", text: "", url: "" }, [{ name: "board.png", mimeType: "image/png", buffer: PIXEL }]);
    const pictures = await until(async () => (await carol.api.get("/api/notes?tag=shared")).body.items, { what: "the picture's note", done: (items) => items.length === 2 });
    const note = (await carol.api.get(`/api/notes/${pictures.find((item: { title: string }) => item.title === "Whiteboard").id}`)).body;
    const file = /\]\((\/api\/files\/\d+)\)/.exec(note.content)?.[1];
    expect(file).toBeDefined();
    expect(Buffer.from(await (await fetch(`${server.url}${file}`, { headers: { authorization: `Bearer ${carol.api.token}` } })).arrayBuffer())).toEqual(PIXEL);
  });

  test("a share made while logged out waits in the outbox and is sent after the login", async () => {
    const dave = await api.newUser("waiting");
    const context = await newContext();
    const page = await openPage(context);
    await workerInCharge(page);
    await share(page, { title: "Kept for later", text: "Shared before logging in.", url: "" });
    await page.getByRole("button", { name: "Log in" }).waitFor();
    expect((await dave.api.get("/api/notes")).body.total).toBe(0);
    await logIn(page, dave);
    await until(async () => (await dave.api.get("/api/notes?tag=shared")).body.total === 1, { what: "the waiting share to be sent" });
  });
});

describe("staying logged in, and /save", () => {
  test("Keep me logged in: a new tab needs no login; /save imports with it; Log out forgets it", async () => {
    const erin = await api.newUser("kept");
    const context = await newContext();
    const page = await openPage(context);
    await page.getByLabel("Keep me logged in on this device").check();
    await logIn(page, erin);
    await notesLoaded(page);
    expect(await page.evaluate(() => sessionStorage.getItem("rhizome.access_token"))).toBeNull();
    await page.getByRole("link", { name: "Settings" }).click();
    const panel = page.getByRole("region", { name: "Save from anywhere" });
    const bookmarklet = await panel.getByRole("link", { name: "Save to Rhizome" }).getAttribute("href");
    expect(await panel.getByRole("link", { name: /Extension for Firefox/ }).getAttribute("href")).toBe("/extension/rhizome-extension-firefox.zip");
    await page.close();

    // The bookmarklet, clicked on the article's own page, opens /save in a small window.
    // The article's page is not the app's: what it loads is its own business, and not watched.
    const reader = await context.newPage();
    await reader.goto(ARTICLE_URL);
    expect(bookmarklet).toStartWith("javascript:");
    const [saver] = await Promise.all([context.waitForEvent("page"), reader.evaluate(decodeURIComponent(bookmarklet!.slice("javascript:".length)))]);
    opened.at(-1)!.watches.push(watchPage(saver));
    await saver.waitForURL(/\/save\?url=/);
    expect(new URL(saver.url()).searchParams.get("url")).toBe(ARTICLE_URL);
    await saver.getByRole("status").filter({ hasText: "completed" }).waitFor({ timeout: 30_000 });
    await saver.getByRole("link", { name: "Open the note" }).waitFor();
    expect((await erin.api.get("/api/tasks")).body.items[0].url).toBe(ARTICLE_URL);
    await saver.close();

    const again = await openPage(context);
    await notesLoaded(again);
    await again.getByRole("button", { name: "Log out" }).click();
    await again.getByRole("button", { name: "Log in" }).waitFor();
    const after = await openPage(context);
    await after.getByRole("button", { name: "Log in" }).waitFor();
    expect(await after.getByRole("list", { name: "Notes", exact: true }).isVisible()).toBe(false);
  });
});
