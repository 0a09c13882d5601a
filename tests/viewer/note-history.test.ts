// The page shows an opened note's history: an earlier version can be shown in place of the note and
// restored. `/graph#note=<id>` (the link MCP's search and fetch give) opens the note after login.
import { expect, test } from "bun:test";
import { Api } from "../support/api";
import { chromiumForThisFile, logIn, watchPage } from "../support/browser";
import { serverForThisFile } from "../support/server";
import { backdateNote } from "../support/backdate-note";

const browser = await chromiumForThisFile();
const { server } = await serverForThisFile();

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
  await logIn(page, alice);
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
