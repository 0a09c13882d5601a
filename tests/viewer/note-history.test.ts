// The page shows an opened note's history: an earlier version can be shown in place of the note and
// restored. `/graph#note=<id>` (the link MCP's search and fetch give) opens the note after login.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { Api } from "../support/api";
import { launchChromium, watchPage } from "../support/browser";
import { startTestServer, type TestServer } from "../support/server";
import { backdateNote } from "../support/backdate-note";

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

test("a note's earlier version is listed, shown, and restored from the page", async () => {
  const alice = await new Api(server.url).newUser("pagehistory");
  const note = (await alice.api.post("/api/notes", { title: "Recipe", content: "Two eggs and **flour**." })).body;
  // Past the coalescing minute, so the edit below is a version of its own.
  await backdateNote(server, note.id);
  await alice.api.put(`/api/notes/${note.id}`, { title: "Recipe (ruined)", content: "Nothing left." });

  const context = await browser.newContext();
  const page = await context.newPage();
  const watch = watchPage(page);
  page.on("dialog", (dialog) => void dialog.accept());
  await page.goto(`${server.url}/graph#note=${note.id}`);
  await page.getByLabel("Username").fill(alice.username);
  await page.getByLabel("Password").fill(alice.password);
  await page.getByRole("button", { name: "Log in" }).click();
  const article = page.getByRole("article", { name: "Recipe (ruined)" });
  await article.waitFor();
  await article.getByText("History").click();
  await article.getByText("1 earlier version, newest first.").waitFor();
  const versions = article.getByRole("list", { name: "Earlier versions" });
  expect(await versions.getByRole("listitem").count()).toBe(1);
  expect(await versions.textContent()).toContain("Version 1");
  await versions.getByRole("button", { name: "Show" }).click();
  await article.getByText("Version 1 of “Recipe (ruined)”, as it was.").waitFor();
  expect(await article.locator(".note-body strong").textContent()).toBe("flour");

  await versions.getByRole("button", { name: "Restore" }).click();
  await page.getByRole("article", { name: "Recipe" }).waitFor();
  expect((await alice.api.get(`/api/notes/${note.id}`)).body).toMatchObject({ title: "Recipe", content: "Two eggs and **flour**." });
  await page.getByText("2 earlier versions, newest first.").waitFor();
  await context.close();
  expect(watch.errors).toEqual([]);
});
