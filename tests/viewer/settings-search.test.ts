// `Search by meaning` in Settings on a server with embeddings (the local stand-in): the model, its
// dimensions, how many of the person's notes are embedded and how many wait. (A server without
// embeddings saying it is off is in settings-webhooks.test.ts.)
import { afterAll, expect, test } from "bun:test";
import { Api } from "../support/api";
import { awaitEmbedded } from "../support/await-embedded";
import { chromiumForThisFile, logIn, watchPage } from "../support/browser";
import { startFakeEmbeddings } from "../support/fake-embeddings";
import { serverForThisFile } from "../support/server";

const browser = await chromiumForThisFile();
const embeddings = startFakeEmbeddings({ dimensions: 64 });
afterAll(() => embeddings.stop());
const { server } = await serverForThisFile({ EMBEDDINGS_BASE_URL: embeddings.url, EMBEDDINGS_MODEL: "fake-embed" }, { unscheduled: ["semantic-sweep"] });

test("Search by meaning shows the model and how many of the person's notes are embedded", async () => {
  const alice = await new Api(server.url).newUser("page-search-on");
  for (const title of ["Sourdough", "Bread notes", "Oven"]) expect((await alice.api.post("/api/notes", { title, content: `Bake the loaf: ${title}.` })).status).toBe(201);
  await awaitEmbedded(alice.api);

  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const watch = watchPage(page);
  await page.goto(`${server.url}/settings`);
  await logIn(page, alice);
  const region = page.getByRole("region", { name: "Search by meaning" });
  await region.getByText("fake-embed").waitFor();
  const text = await region.textContent();
  expect(text).toContain("On");
  expect(text).not.toContain("EMBEDDINGS_BASE_URL");
  expect(text).toContain("3 of 3 notes embedded, 0 pending.");
  expect(text).toContain("Dimensions64");
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
  await context.close();
  expect(watch.errors).toEqual([]);
});

test("while notes wait to be embedded, Search by meaning follows the counts without a reload", async () => {
  const bob = await new Api(server.url).newUser("page-search-pending");
  // A slow embeddings server: the notes are still pending when the page first reads the status.
  embeddings.mode.delayMs = 6000;
  try {
    for (const title of ["Kitten", "小猫"]) expect((await bob.api.post("/api/notes", { title, content: `A note about a ${title}.` })).status).toBe(201);
    const context = await browser.newContext();
    const page = await context.newPage();
    const watch = watchPage(page);
    await page.goto(`${server.url}/settings`);
    await logIn(page, bob);
    const region = page.getByRole("region", { name: "Search by meaning" });
    await region.getByText(/of 2 notes embedded, [12] pending/).waitFor();
    await region.getByText("2 of 2 notes embedded, 0 pending.").waitFor({ timeout: 30_000 });
    await context.close();
    expect(watch.errors).toEqual([]);
  } finally {
    embeddings.mode.delayMs = 0;
  }
});
