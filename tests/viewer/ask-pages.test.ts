// The page's answers name the page of an imported document a passage is on ("p. 12"), from the
// passage's `page` (the nearest `[p. N]` line before it), in real headless Chromium.
import { expect, test } from "bun:test";
import { chromiumForThisFile, logIn, watchPage } from "../support/browser";
import { serverForThisFile } from "../support/server";

const browser = await chromiumForThisFile();
const { server, api } = await serverForThisFile();
const alice = await api.newUser("pages");

test("a passage from a document's page shows `p. N` beside its citation; one from an ordinary note shows none", async () => {
  const content = ["[p. 11]", "The first chapter is about the river.", "[p. 12]", "The lighthouse keeper counted seventeen ships passing the northern cape that winter."].join("\n\n");
  expect((await alice.api.post("/api/notes", { title: "Harbour log", content })).status).toBe(201);
  expect((await alice.api.post("/api/notes", { title: "Diary", content: "I read about a lighthouse keeper and the ships he counted." })).status).toBe(201);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const watch = watchPage(page);
  try {
    await page.goto(`${server.url}/graph`);
    await logIn(page, alice);
    await page.getByLabel("Ask your notes").fill("How many ships did the lighthouse keeper count?");
    await page.getByLabel("Ask your notes").press("Enter");
    const answer = page.getByRole("region", { name: "Answer" });
    const log = answer.getByRole("listitem").filter({ has: page.getByRole("link", { name: "Harbour log" }) });
    await log.first().waitFor({ timeout: 15_000 });
    expect(await log.first().locator(".answer-page").textContent()).toBe("p. 12");
    const diary = answer.getByRole("listitem").filter({ has: page.getByRole("link", { name: "Diary" }) });
    await diary.first().waitFor();
    expect(await diary.first().locator(".answer-page").count()).toBe(0);
    expect(watch.errors).toEqual([]);
  } finally {
    await context.close();
  }
}, 60_000);
