// `Share` in a note's view, in Chromium: a link made from the notes app opens the note for a browser
// that is not logged in, and after `Revoke` it is a 404 page; the graph view's note view has the same
// region; another note or logging out leaves nothing of the last note's links; the server's refusals
// (a bad number of days, the 101st link, a note gone meanwhile) are said in the region; at 390 px
// nothing sticks out.
import { expect, test } from "bun:test";
import path from "node:path";
import type { Page } from "playwright-core";
import { Api } from "../support/api";
import { chromiumForThisFile, logIn, watchPage, type PageWatch } from "../support/browser";
import { horizontalOverflow } from "../support/overflow";
import { serverForThisFile } from "../support/server";

const browser = await chromiumForThisFile();
const { server } = await serverForThisFile();

const DAY_MS = 24 * 60 * 60 * 1000;

async function openNote(user: { username: string; password: string }, title: string, viewport = { width: 1400, height: 900 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const watch = watchPage(page);
  await page.goto(`${server.url}/`);
  await logIn(page, user);
  await page.getByRole("list", { name: "Notes", exact: true }).getByRole("button", { name: new RegExp(`^${title}`) }).click();
  const share = page.getByRole("article", { name: title, exact: true }).getByRole("region", { name: "Share" });
  await share.getByText(/live links?|No live links/).waitFor();
  return { context, page, watch, share };
}

test("a link made in a note's view opens the note for anyone, and Revoke makes it a 404 page", async () => {
  const alice = await new Api(server.url).newUser("page-share");
  const note = (await alice.api.post("/api/notes", { title: "Trip plan", content: "Pack the **boots** and a map." })).body;
  const { context, page, watch, share } = await openNote(alice, "Trip plan");
  expect(await share.textContent()).toContain("No live links");

  await share.getByLabel("Expires in days").fill("7");
  await share.getByRole("button", { name: "Create link" }).click();
  const links = share.getByRole("list", { name: "Live links" });
  await links.getByRole("listitem").first().waitFor();
  const url = (await links.getByRole("link").first().textContent())!;
  expect(url).toMatch(new RegExp(`^${server.url}/s/[A-Za-z0-9_-]{24}$`));
  expect(await links.getByRole("listitem").first().textContent()).toContain("expires");
  const [made] = (await alice.api.get(`/api/notes/${note.id}/shares`)).body.items;
  expect(made.url).toBe(url);
  expect(Date.parse(made.expires_at) - Date.parse(made.created_at)).toBe(7 * DAY_MS);
  expect(await links.getByRole("button", { name: "Copy" }).count()).toBe(1);
  await shot(page, "share-notes");

  // A second, without an expiry: the newest is on top.
  await share.getByRole("button", { name: "Create link" }).click();
  await links.getByRole("listitem").nth(1).waitFor();
  expect(await links.getByRole("listitem").first().textContent()).toContain("never expires");
  expect(await share.getByLabel("Expires in days").inputValue()).toBe("");

  // Anyone with the link, not logged in, reads the note.
  const stranger = await browser.newContext();
  const reader = await stranger.newPage();
  const opened = await reader.goto(url);
  expect(opened?.status()).toBe(200);
  await reader.getByRole("heading", { name: "Trip plan" }).waitFor();
  expect(await reader.locator("strong").filter({ hasText: "boots" }).count()).toBe(1);

  await links.getByRole("listitem").filter({ hasText: url }).getByRole("button", { name: "Revoke" }).click();
  await share.getByText("Revoked").waitFor();
  expect(await links.getByRole("listitem").count()).toBe(1);
  expect(await links.getByRole("listitem").filter({ hasText: url }).count()).toBe(0);
  const gone = await reader.goto(url);
  expect(gone?.status()).toBe(404);
  expect(await reader.textContent("body")).not.toContain("boots");
  await stranger.close();
  expect((await alice.api.get(`/api/notes/${note.id}/shares`)).body.items).toHaveLength(1);
  await context.close();
  expect(watch.errors).toEqual([]);
});

test("the graph view's note view has Share too; another note, and logging out, leave none of the last note's links", async () => {
  const bob = await new Api(server.url).newUser("page-share-graph");
  const first = (await bob.api.post("/api/notes", { title: "First note", content: "One." })).body;
  const second = (await bob.api.post("/api/notes", { title: "Second note", content: "Two." })).body;
  const link = (await bob.api.post(`/api/notes/${first.id}/shares`, {})).body;

  const context = await browser.newContext();
  const page = await context.newPage();
  const watch = watchPage(page);
  await page.goto(`${server.url}/graph#note=${first.id}`);
  await logIn(page, bob);
  const share = page.getByRole("article", { name: "First note" }).getByRole("region", { name: "Share" });
  await share.getByRole("list", { name: "Live links" }).getByRole("link", { name: link.url }).waitFor();
  expect(await share.getByText("1 live link").count()).toBe(1);
  await shot(page, "share-graph");

  await page.evaluate((id) => (location.hash = `#note=${id}`), second.id);
  const secondShare = page.getByRole("article", { name: "Second note" }).getByRole("region", { name: "Share" });
  await secondShare.getByText("No live links").waitFor();
  expect(await page.getByText(link.url).count()).toBe(0);
  await secondShare.getByRole("button", { name: "Create link" }).click();
  await secondShare.getByRole("list", { name: "Live links" }).getByRole("listitem").waitFor();
  expect((await bob.api.get(`/api/notes/${second.id}/shares`)).body.items).toHaveLength(1);

  await page.getByRole("button", { name: "Log out" }).click();
  await page.getByRole("button", { name: "Log in" }).waitFor();
  expect(await page.locator("#note-share a").count()).toBe(0);
  expect(await page.getByLabel("Expires in days").count()).toBe(0);
  await context.close();
  expect(watch.errors).toEqual([]);
});

test("the server's refusals are said in Share: a bad number of days, the 101st link, a note deleted meanwhile", async () => {
  const carol = await new Api(server.url).newUser("page-share-refused");
  const note = (await carol.api.post("/api/notes", { title: "Popular", content: "Everyone wants this." })).body;
  const { context, page, watch, share } = await openNote(carol, "Popular");

  await share.getByLabel("Expires in days").fill("400");
  await share.getByRole("button", { name: "Create link" }).click();
  await share.getByRole("alert").getByText("365").waitFor();

  for (let i = 0; i < 100; i++) expect((await carol.api.post(`/api/notes/${note.id}/shares`, {})).status).toBe(201);
  await share.getByLabel("Expires in days").fill("");
  await share.getByRole("button", { name: "Create link" }).click();
  await share.getByRole("alert").getByText("100 live share links").waitFor();

  expect((await carol.api.delete(`/api/notes/${note.id}`)).status).toBe(204);
  await share.getByRole("button", { name: "Create link" }).click();
  await share.getByRole("alert").getByText(/not found/i).waitFor();
  await context.close();
  expect(errorsBesides(watch, [/status of (400|404|409) .*\/api\/notes\/\d+\/shares$/])).toEqual([]);
});

test("at 390 px a note's view with Share and its links fits the screen", async () => {
  const dave = await new Api(server.url).newUser("page-share-phone");
  const note = (await dave.api.post("/api/notes", { title: "Phone note", content: "Short." })).body;
  await dave.api.post(`/api/notes/${note.id}/shares`, { expires_in_days: 30 });
  const { context, page, watch, share } = await openNote(dave, "Phone note", { width: 390, height: 844 });
  await share.getByRole("button", { name: "Create link" }).click();
  await share.getByRole("list", { name: "Live links" }).getByRole("listitem").nth(1).waitFor();
  await share.scrollIntoViewIfNeeded();
  await shot(page, "share-phone");
  expect(await horizontalOverflow(page, "#notes-view")).toEqual([]);
  await context.close();
  expect(watch.errors).toEqual([]);
});

/** A photograph of the page, kept in SHOTS_DIR when it is set (to be looked at). */
async function shot(page: Page, name: string) {
  if (process.env.SHOTS_DIR) await page.screenshot({ path: path.join(process.env.SHOTS_DIR, `${name}.png`), fullPage: true });
}

/** Console errors besides the refusals a test provokes (Chromium logs every non-2xx response). */
function errorsBesides(watch: PageWatch, expected: RegExp[]) {
  return watch.errors.filter((error) => !expected.some((pattern) => pattern.test(`${error.text} ${error.url}`)));
}
