// The /graph page in real headless Chromium: log in, see the graph drawn, search, read a concept's
// notes, open a note, filter and resize, build from the page; never a request off the origin, a
// token in a URL, or an error in the console.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { Api } from "../support/api";
import { chromiumForThisFile, logIn, pixelVariety, watchPage, type PageWatch } from "../support/browser";
import { serverForThisFile } from "../support/server";
import { awaitBuild } from "../support/await-build";
import { until } from "../support/until";

const browser = await chromiumForThisFile(); // first: without Chromium, fail at once and start nothing
const { server, api } = await serverForThisFile();
const decoder = await browser.newPage();
const alice = await api.newUser("viewer");

const NOTES = [
  { title: "Learning plan", content: "Study [[Machine Learning]] with [[Andrew Ng]].\n\nThen read about [[Neural Networks]].", tags: ["study"] },
  {
    title: "Course notes",
    content:
      "The course says [[Machine Learning]] needs [[Linear Algebra]].\n\n[[Gradient Descent]] **minimises** loss.\n\n" +
      '<img src="https://example.com/pixel.png" onerror="document.title=\'pwned\'"> <script>document.title="pwned"</script>\n\n- one\n- two',
    tags: ["study"],
  },
  { title: "Weekend", content: "Visited [[Kyoto]] with [[Hana]].\n\nThe [[Golden Pavilion]] was crowded.", tags: ["travel"] },
];

beforeAll(async () => {
  for (const note of NOTES) expect((await alice.api.post("/api/notes", note)).status).toBe(201);
  await buildAndWait(alice.api);
});

async function buildAndWait(api: Api) {
  expect((await api.post("/api/knowledge-graph/build", { mode: "incremental" })).status).toBe(202);
  expect((await awaitBuild(api)).status.status).toBe("completed");
}

interface Opened {
  context: BrowserContext;
  page: Page;
  watch: PageWatch;
}
const opened: Opened[] = [];

async function openViewer(options: { viewport?: { width: number; height: number }; noWebgl?: boolean } = {}): Promise<Opened> {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 800 } });
  const page = await context.newPage();
  if (options.noWebgl) {
    // As a browser without WebGL: every WebGL context request fails.
    await page.addInitScript(() => {
      const original = HTMLCanvasElement.prototype.getContext;
      HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, type: string, ...rest: unknown[]) {
        return /webgl/i.test(type) ? null : original.call(this, type as "2d", ...(rest as []));
      } as typeof original;
    });
  }
  const watch = watchPage(page);
  await page.goto(`${server.url}/graph`);
  const entry = { context, page, watch };
  opened.push(entry);
  return entry;
}

/** The element labelled `Knowledge graph` that holds the rendering. */
function graphOf(page: Page) {
  return page.getByLabel("Knowledge graph", { exact: true });
}

/** Waits until sigma has drawn the graph, its layout has settled and the Concepts list is complete. */
async function waitForGraph(page: Page) {
  await page.locator('[aria-label="Knowledge graph"][data-layout="settled"]').waitFor({ timeout: 30_000 });
  await page.locator('ul[aria-label="Concepts"]:not([aria-busy])').waitFor();
}

// After every test: everything the page fetched came from this server, no URL carried the access
// token, and the console stayed free of errors.
afterEach(async () => {
  for (const { context, page, watch } of opened.splice(0)) {
    const token = await page.evaluate(() => sessionStorage.getItem("rhizome.access_token")).catch(() => null);
    await context.close();
    expect(watch.requests.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
    if (token) expect(watch.requests.filter((url) => url.includes(token))).toEqual([]);
    expect(watch.requests.filter((url) => /access_token|[?&]token=/i.test(url))).toEqual([]);
    expect(watch.errors).toEqual([]);
  }
});

describe("GET /graph", () => {
  test("serves the page and its assets without auth, with a strict Content-Security-Policy", async () => {
    const page = await fetch(`${server.url}/graph`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toStartWith("text/html");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("worker-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    expect(html).not.toMatch(/https?:\/\//); // nothing from another origin
    for (const [asset, type] of [["viewer.js", "text/javascript"], ["layout-worker.js", "text/javascript"], ["viewer.css", "text/css"]]) {
      const response = await fetch(`${server.url}/graph/assets/${asset}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toStartWith(type!);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      const again = await fetch(`${server.url}/graph/assets/${asset}`, { headers: { "if-none-match": response.headers.get("etag")! } });
      expect(again.status).toBe(304);
    }
    const document = await (await fetch(`${server.url}/openapi.json`)).json();
    expect(document.paths["/graph"].get.security).toEqual([]);
    const missing = await fetch(`${server.url}/graph/assets/nothing.js`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).code).toBe("NOT_FOUND");
  });
});

describe("the graph viewer", () => {
  test("logs in with the password form, keeps the token in sessionStorage only, and draws the graph", async () => {
    const { page } = await openViewer();
    await logIn(page, alice);
    await waitForGraph(page);
    const graph = graphOf(page);
    const drawn = await pixelVariety(graph, decoder);
    expect(drawn.colours).toBeGreaterThan(20);
    expect(drawn.inked).toBeGreaterThan(0.001);
    const nodes = (await alice.api.get("/api/knowledge-graph")).body.stats.total_nodes;
    expect(await page.locator("#showing").textContent()).toBe(`showing ${nodes} of ${nodes} concepts`);
    expect(await page.getByRole("list", { name: "Concepts" }).getByRole("button").count()).toBe(nodes);
    const storage = await page.evaluate(() => ({ session: Object.keys(sessionStorage), local: JSON.stringify(localStorage), cookie: document.cookie, url: location.href }));
    expect(storage.session).toEqual(["rhizome.access_token"]);
    const token = await page.evaluate(() => sessionStorage.getItem("rhizome.access_token"));
    expect(storage.local).not.toContain(token!);
    expect(storage.cookie).toBe("");
    expect(storage.url).toBe(`${server.url}/graph`);
    expect(await page.getByRole("status").textContent()).toContain("completed");
  });

  test("a reload keeps the session and draws the same layout without recomputing it", async () => {
    const { page, watch } = await openViewer();
    await logIn(page, alice);
    await waitForGraph(page);
    const first = await graphOf(page).screenshot();
    const workers = watch.requests.filter((url) => url.endsWith("/layout-worker.js")).length;
    await page.reload();
    await waitForGraph(page);
    expect(await page.getByLabel("Username").isVisible()).toBe(false);
    // The cached layout draws at once: no layout worker started after the reload.
    expect(watch.requests.filter((url) => url.endsWith("/layout-worker.js")).length).toBe(workers);
    expect(Buffer.compare(await graphOf(page).screenshot(), first)).toBe(0);
  });

  test("Log out revokes the token and leaves nothing of the account in the page", async () => {
    const { page } = await openViewer();
    await logIn(page, alice);
    await waitForGraph(page);
    const token = await page.evaluate(() => sessionStorage.getItem("rhizome.access_token"));
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByLabel("Username").waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect((await new Api(server.url, token!).get("/api/auth/me")).status).toBe(401);
    expect(await page.getByRole("list", { name: "Concepts", includeHidden: true }).getByRole("button", { includeHidden: true }).count()).toBe(0);
    expect(await page.getByRole("region", { name: "Concept details", includeHidden: true }).textContent()).toBe("");
  });

  test("search flies to a concept; its details show the notes that mention it with their passage", async () => {
    const { page } = await openViewer();
    await logIn(page, alice);
    await waitForGraph(page);
    const search = page.getByLabel("Search concepts");
    await search.fill("machine");
    const list = page.getByRole("list", { name: "Concepts" });
    expect(await list.getByRole("button").filter({ visible: true }).count()).toBe(1);
    await search.press("Enter");
    const details = page.getByRole("region", { name: "Concept details" });
    await details.getByRole("heading", { name: "Machine Learning" }).waitFor();
    await details.getByRole("list", { name: "Notes" }).getByRole("button", { name: "Learning plan" }).waitFor();
    await details.getByRole("list", { name: "Notes" }).getByRole("button", { name: "Course notes" }).waitFor();
    const id = (await alice.api.get("/api/knowledge-graph")).body.nodes.find((node: { label: string }) => node.label === "Machine Learning").id;
    const passages = (await alice.api.get(`/api/knowledge-graph/nodes/${id}`)).body.notes.map((note: { excerpt: string }) => note.excerpt);
    expect(passages).toContain("Study [[Machine Learning]] with [[Andrew Ng]].");
    // Shown rendered: a [[wikilink]] reads as its words (and is a link).
    const rendered = passages.map((passage: string) => passage.replace(/\[\[([^\]|]+)(?:\|([^\]]+))?\]\]/g, (_, target: string, label?: string) => label ?? target));
    expect(await details.getByRole("list", { name: "Notes" }).locator("blockquote").allTextContents()).toEqual(rendered);
    // Neighbours are buttons that select them.
    await details.getByRole("list", { name: "Related concepts" }).getByRole("button", { name: "Andrew Ng" }).click();
    await details.getByRole("heading", { name: "Andrew Ng" }).waitFor();
  });

  test("a note opens in the page as text: its HTML is never markup and loads nothing", async () => {
    const { page, watch } = await openViewer();
    await logIn(page, alice);
    await waitForGraph(page);
    await page.getByRole("list", { name: "Concepts" }).getByRole("button", { name: /^Gradient Descent/ }).click();
    const details = page.getByRole("region", { name: "Concept details" });
    await details.getByRole("list", { name: "Notes" }).getByRole("button", { name: "Course notes" }).click();
    const note = page.getByRole("article", { name: "Course notes" });
    await note.waitFor();
    expect(await note.locator("strong").textContent()).toBe("minimises");
    expect(await note.locator("li").allTextContents()).toEqual(["one", "two"]);
    expect(await note.textContent()).toContain('<script>document.title="pwned"</script>');
    expect(await note.locator("img, script").count()).toBe(0);
    expect(await page.title()).not.toBe("pwned");
    expect(watch.requests.some((url) => url.includes("example.com"))).toBe(false);
    await note.getByRole("button", { name: "Close note" }).click();
    await note.waitFor({ state: "hidden" });
  });

  test("Search notes finds notes by their words, marks the match, and opens a note in the page", async () => {
    const { page } = await openViewer();
    await logIn(page, alice);
    await waitForGraph(page);
    const search = page.getByRole("searchbox", { name: "Search notes" });
    await search.fill("loss");
    await search.press("Enter");
    const found = page.getByRole("list", { name: "Search results" });
    const hit = found.getByRole("button", { name: /Course notes/ });
    await hit.waitFor();
    expect(await found.getByRole("listitem").count()).toBe(1);
    expect((await hit.locator("mark").allTextContents()).map((text) => text.toLowerCase())).toContain("loss");
    await hit.click();
    await page.getByRole("article", { name: "Course notes" }).waitFor();
    await search.fill("zeppelin");
    await search.press("Enter");
    await page.getByText("No note matches.").waitFor();
    expect(await found.getByRole("listitem").count()).toBe(0);
  });

  test("the legend isolates a community, the type filter and the node limit change what is drawn", async () => {
    const bob = await new Api(server.url).newUser("large");
    const db = await import("../../src/db/client").then(({ openNotesDatabase }) => openNotesDatabase({ url: `file:${server.dbFile}` }));
    try {
      const me = (await bob.api.get("/api/auth/me")).body;
      const { seedGraph } = await import("../support/graph-seed");
      await seedGraph(db.db, me.id, { nodes: 700, edges: 2100, seed: 4 });
    } finally {
      db.close();
    }
    const { page } = await openViewer();
    await logIn(page, bob);
    await waitForGraph(page);
    expect(await page.locator("#showing").textContent()).toBe("showing 500 of 700 concepts");
    // At 1280×800 the page itself never scrolls: a long Concept details panel scrolls inside.
    await page.getByRole("list", { name: "Concepts" }).getByRole("button").first().click();
    await page.getByRole("region", { name: "Concept details" }).getByRole("list", { name: "Notes" }).waitFor();
    expect(await page.evaluate(() => document.getElementById("details")!.scrollHeight)).toBeGreaterThan(800);
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(800);
    const legend = page.getByRole("list", { name: "Communities" }).getByRole("button");
    expect(await legend.count()).toBeGreaterThan(1);
    const graph = graphOf(page);
    const before = (await pixelVariety(graph, decoder)).inked;
    await legend.first().click();
    expect(await legend.first().getAttribute("aria-pressed")).toBe("true");
    // One community of a dozen or more: far less of the picture is drawn.
    await until(async () => (await pixelVariety(graph, decoder)).inked, { timeoutMs: 15_000, what: "the graph to be drawn with half the ink", done: (inked) => inked < before / 2 });
    await page.getByLabel("Type").selectOption({ index: 1 });
    await page.getByLabel("Nodes").selectOption("1000");
    await page.locator("#showing", { hasText: "showing 700 of 700 concepts" }).waitFor();
    await waitForGraph(page);
    expect(await page.getByRole("list", { name: "Concepts" }).getByRole("button").count()).toBe(700);
  });

  test("double-clicking a concept, or Expand neighbourhood, adds its neighbours to the drawing", async () => {
    const carol = await new Api(server.url).newUser("expand");
    const db = await import("../../src/db/client").then(({ openNotesDatabase }) => openNotesDatabase({ url: `file:${server.dbFile}` }));
    try {
      const me = (await carol.api.get("/api/auth/me")).body;
      const { seedGraph } = await import("../support/graph-seed");
      await seedGraph(db.db, me.id, { nodes: 900, edges: 4000, seed: 5 });
    } finally {
      db.close();
    }
    const { page } = await openViewer();
    await logIn(page, carol);
    await waitForGraph(page);
    const shown = async () => Number((await page.locator("#showing").textContent())!.match(/^showing (\d+) of 900 concepts$/)![1]);
    expect(await shown()).toBe(500);

    // Picking the heaviest concept flies the camera to it, so once the picture is still it sits in the middle.
    const concepts = page.getByRole("list", { name: "Concepts" }).getByRole("button");
    await concepts.first().click();
    const graph = graphOf(page);
    let previous = await graph.screenshot();
    await until(
      async () => {
        const current = await graph.screenshot();
        const still = current.equals(previous);
        previous = current;
        return still;
      },
      { what: "the camera to come to rest on the picked concept", timeoutMs: 15_000, intervalMs: 0 },
    );
    const box = (await graph.boundingBox())!;
    await page.mouse.dblclick(box.x + box.width / 2, box.y + box.height / 2);
    await page.locator("#showing", { hasNotText: "showing 500 of" }).waitFor();
    const afterDoubleClick = await shown();
    expect(afterDoubleClick).toBeGreaterThan(500);

    await concepts.nth(1).click();
    await page.getByRole("region", { name: "Concept details" }).getByRole("button", { name: "Expand neighbourhood" }).click();
    await page.locator("#showing", { hasNotText: `showing ${afterDoubleClick} of` }).waitFor();
    expect(await shown()).toBeGreaterThan(afterDoubleClick);
  });

  test("an account with a second factor is asked for the Code; an empty graph says how to fill it", async () => {
    const dave = await new Api(server.url).newUser("twofactor");
    const { totpCodeAt } = await import("../../src/modules/auth/totp");
    const setup = (await dave.api.post("/api/auth/totp/setup")).body;
    const enabled = await dave.api.post("/api/auth/totp/enable", { code: totpCodeAt(setup.secret) });
    expect(enabled.status).toBe(200);
    const { page } = await openViewer();
    await logIn(page, dave);
    const code = page.getByLabel("Code");
    await code.waitFor();
    await code.fill(enabled.body.recovery_codes[0]);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("button", { name: "Build graph" }).waitFor();
    await page.getByText("Your graph is empty").waitFor();
    await page.locator('[aria-label="Knowledge graph"][data-drawn="0"]').waitFor();
    expect(await page.getByRole("status").textContent()).toContain("idle");
  });

  test("without WebGL the Concepts list is the view, with a message and no console error", async () => {
    const { page } = await openViewer({ noWebgl: true });
    await logIn(page, alice);
    await page.locator('[aria-label="Knowledge graph"][data-drawn="none"]').waitFor();
    await page.getByText("WebGL is unavailable").waitFor();
    await page.locator('ul[aria-label="Concepts"]:not([aria-busy])').waitFor();
    await page.getByRole("list", { name: "Concepts" }).getByRole("button", { name: /^Kyoto/ }).click();
    await page.getByRole("region", { name: "Concept details" }).getByRole("list", { name: "Notes" }).getByRole("button", { name: "Weekend" }).waitFor();
  });

  test("fits a phone-sized screen: the graph is drawn and nothing scrolls sideways", async () => {
    const { page } = await openViewer({ viewport: { width: 390, height: 844 } });
    await logIn(page, alice);
    await waitForGraph(page);
    const graph = graphOf(page);
    expect((await pixelVariety(graph, decoder)).colours).toBeGreaterThan(20);
    const box = (await graph.boundingBox())!;
    expect(box.width).toBeLessThanOrEqual(390);
    expect(box.height).toBeGreaterThan(200);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.getByLabel("Search concepts").waitFor();
  });

  test("Build graph from the page: the status line follows the build live to completed and the graph refreshes", async () => {
    const erin = await new Api(server.url).newUser("builder");
    await erin.api.post("/api/notes", { title: "Tea", content: "[[Green Tea]] and [[Matcha]] from [[Uji]]." });
    const { page } = await openViewer();
    await logIn(page, erin);
    const status = page.getByRole("status");
    await status.filter({ hasText: "idle" }).waitFor();
    await page.getByRole("button", { name: "Build graph" }).click();
    await status.filter({ hasText: /completed · 100%/ }).waitFor({ timeout: 30_000 });
    expect(await status.textContent()).toContain("1 of 1 notes processed");
    await page.getByRole("list", { name: "Concepts" }).getByRole("button", { name: /^Matcha/ }).waitFor();
    await waitForGraph(page);
    expect((await pixelVariety(graphOf(page), decoder)).colours).toBeGreaterThan(20);
  });
});
