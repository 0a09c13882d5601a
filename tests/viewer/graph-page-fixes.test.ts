// The graph view's own bugs, each shown in Chromium (each of these failed on the page before the
// notes app): `Search notes` results were white on white; once a concept was selected, the `Answer`
// region and the results shrank to a sliver of the side panel; `[[wikilinks]]` in an opened note
// were plain text; passages in `Concept details` showed raw Markdown.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { awaitBuild } from "../support/await-build";
import { chromiumForThisFile, logIn, watchPage, type PageWatch } from "../support/browser";
import { serverForThisFile } from "../support/server";

const browser = await chromiumForThisFile();
const { server, api } = await serverForThisFile();
const alice = await api.newUser("graphfixes");

beforeAll(async () => {
  const notes = [
    { title: "Kahneman", content: "**System 1** is fast and [[System 2]] is slow; both shape [[Loss Aversion]].\n\nLosses loom larger than gains." },
    { title: "Learning plan", content: "Study [[Machine Learning]] with [[Andrew Ng]], one week at a time." },
    // Many notes on one concept: its Concept details run far past the side panel's height.
    ...Array.from({ length: 30 }, (_, index) => ({
      title: `Lecture ${index + 1}`,
      content: `Lecture ${index + 1} of the course on [[Machine Learning]]: gradients, losses and the learning rate, explained slowly with examples.`,
    })),
  ];
  for (const note of notes) expect((await alice.api.post("/api/notes", note)).status).toBe(201);
  expect((await alice.api.post("/api/knowledge-graph/build", { mode: "incremental" })).status).toBe(202);
  expect((await awaitBuild(alice.api)).status.status).toBe("completed");
});

const opened: { context: BrowserContext; watch: PageWatch }[] = [];
afterEach(async () => {
  for (const { context, watch } of opened.splice(0)) {
    await context.close();
    expect(watch.errors).toEqual([]);
  }
});

async function openGraph(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  opened.push({ context, watch: watchPage(page) });
  await page.goto(`${server.url}/graph`);
  await logIn(page, alice);
  await page.locator('[aria-label="Knowledge graph"][data-drawn]').waitFor({ timeout: 30_000 });
  await page.locator('ul[aria-label="Concepts"]:not([aria-busy])').waitFor();
  return page;
}

async function searchNotes(page: Page, words: string) {
  const search = page.getByRole("searchbox", { name: "Search notes" });
  await search.fill(words);
  await search.press("Enter");
  await page.getByRole("list", { name: "Search results" }).getByRole("listitem").first().waitFor();
}

describe("the graph view's fixes", () => {
  test("Search notes results are readable: their text is not the colour of their background", async () => {
    const page = await openGraph();
    await searchNotes(page, "losses");
    const hit = page.getByRole("list", { name: "Search results" }).getByRole("button", { name: /Kahneman/ });
    const colours = await hit.evaluate((button) => {
      const ink = getComputedStyle(button.querySelector("strong")!).color;
      // The background the text is drawn on: the first ancestor that paints one.
      let element: Element | null = button;
      let paper = "rgba(0, 0, 0, 0)";
      while (element && /rgba\(0, 0, 0, 0\)|transparent/.test(paper)) {
        paper = getComputedStyle(element).backgroundColor;
        element = element.parentElement;
      }
      return { ink, paper };
    });
    expect(colours.paper).toBe("rgb(255, 255, 255)");
    expect(colours.ink).not.toBe(colours.paper);
    expect(colours.ink).toBe("rgb(31, 35, 40)");
  });

  test("with a concept selected, the Answer region and the search results keep their height", async () => {
    const page = await openGraph();
    await page.getByRole("searchbox", { name: "Ask your notes" }).fill("machine learning lectures");
    await page.getByRole("searchbox", { name: "Ask your notes" }).press("Enter");
    const answer = page.getByRole("region", { name: "Answer" });
    await answer.getByRole("list", { name: "Sources" }).getByRole("listitem").first().waitFor();
    await searchNotes(page, "lecture");
    await page.getByLabel("Search concepts").fill("Machine Learning");
    await page.getByLabel("Search concepts").press("Enter");
    const details = page.getByRole("region", { name: "Concept details" });
    await details.getByRole("heading", { name: "Machine Learning" }).waitFor();
    await details.getByRole("list", { name: "Notes" }).getByRole("listitem").nth(20).waitFor();
    // Each shows all it holds up to its own cap (22rem, 14rem), never a sliver; the panel scrolls instead.
    const answerBox = await answer.evaluate((element) => ({ height: element.getBoundingClientRect().height, content: element.scrollHeight }));
    expect(answerBox.height).toBeGreaterThanOrEqual(Math.min(answerBox.content, 300));
    const results = await page.getByRole("list", { name: "Search results" }).evaluate((element) => ({ height: element.getBoundingClientRect().height, content: element.scrollHeight }));
    expect(results.height).toBeGreaterThanOrEqual(Math.min(results.content, 200));
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(800);
  });

  test("an opened note's [[wikilinks]] are links; one with no note of its title opens the concept", async () => {
    const page = await openGraph();
    await searchNotes(page, "Andrew");
    await page.getByRole("list", { name: "Search results" }).getByRole("button", { name: /Learning plan/ }).click();
    const note = page.getByRole("article", { name: "Learning plan" });
    await note.waitFor();
    expect(await note.getByRole("link").allTextContents()).toEqual(["Machine Learning", "Andrew Ng"]);
    expect(await note.textContent()).not.toContain("[[");
    await note.getByRole("link", { name: "Andrew Ng" }).click();
    await page.getByRole("region", { name: "Concept details" }).getByRole("heading", { name: "Andrew Ng" }).waitFor();
  });

  test("passages in Concept details are rendered Markdown, not raw marks", async () => {
    const page = await openGraph();
    await page.getByLabel("Search concepts").fill("System 2");
    await page.getByLabel("Search concepts").press("Enter");
    const details = page.getByRole("region", { name: "Concept details" });
    await details.getByRole("heading", { name: "System 2" }).waitFor();
    const passage = details.getByRole("list", { name: "Notes" }).locator("blockquote").first();
    await passage.waitFor();
    const raw = (await alice.api.get("/api/knowledge-graph?q=System%202")).body.nodes[0];
    const excerpt = (await alice.api.get(`/api/knowledge-graph/nodes/${raw.id}`)).body.notes[0].excerpt as string;
    expect(excerpt).toContain("**System 1**"); // the API gives Markdown…
    const text = await passage.textContent();
    expect(text).not.toMatch(/\*\*|\[\[|\]\]/); // …the page shows it rendered
    expect(text).toContain("System 1 is fast and System 2 is slow");
    expect(await passage.locator("strong").allTextContents()).toEqual(["System 1"]);
  });
});
