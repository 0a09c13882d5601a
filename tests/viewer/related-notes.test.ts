// The page lists the notes related to the open one (by meaning, with the embeddings stand-in), and opens one.
import { afterAll, expect, test } from "bun:test";
import { Api } from "../support/api";
import { chromiumForThisFile, logIn, watchPage } from "../support/browser";
import { startFakeEmbeddings } from "../support/fake-embeddings";
import { serverForThisFile } from "../support/server";
import { until } from "../support/until";

const browser = await chromiumForThisFile();
const embeddings = startFakeEmbeddings();
afterAll(() => embeddings.stop());
const { server } = await serverForThisFile({ EMBEDDINGS_BASE_URL: embeddings.url, EMBEDDINGS_MODEL: "fake-embed" });

test("an open note shows its related notes, each opening in the page", async () => {
  const alice = await new Api(server.url).newUser("pagerelated");
  const note = (await alice.api.post("/api/notes", { title: "Weekend", content: "Purchasing an automobile before the holidays." })).body;
  await alice.api.post("/api/notes", { title: "汽车", content: "我想买一辆汽车。" });
  await alice.api.post("/api/notes", { title: "Sourdough", content: "Bake the loaf in a hot oven." });
  await until(async () => (await alice.api.get("/api/search/status")).body.pending === 0 && (await alice.api.get("/api/search/status")).body.mode === "hybrid", {
    what: "the notes to be embedded",
    timeoutMs: 30_000,
  });

  const context = await browser.newContext();
  const page = await context.newPage();
  const watch = watchPage(page);
  await page.goto(`${server.url}/graph#note=${note.id}`);
  await logIn(page, alice);
  const article = page.getByRole("article", { name: "Weekend" });
  await article.waitFor();
  const related = page.getByRole("list", { name: "Related notes" });
  await related.getByRole("button", { name: "汽车" }).waitFor();
  expect(await related.getByRole("button", { name: "Weekend" }).count()).toBe(0);
  await related.getByRole("button", { name: "汽车" }).click();
  await page.getByRole("article", { name: "汽车" }).waitFor();
  // Closing the note hides its related notes with it.
  await page.getByRole("button", { name: "Close note" }).click();
  await related.waitFor({ state: "hidden" });
  await context.close();
  expect(watch.errors).toEqual([]);
});
