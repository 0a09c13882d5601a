// The /graph page shows a note's stored pictures: fetched with the bearer header (never a token in a
// URL), shown as blob URLs; pictures from elsewhere are never loaded.
import { expect, test } from "bun:test";
import { Api } from "../support/api";
import { chromiumForThisFile, logIn, watchPage } from "../support/browser";
import { serverForThisFile } from "../support/server";

// A real 1×1 PNG, so the browser decodes it.
const DOT = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

const browser = await chromiumForThisFile();
const { server } = await serverForThisFile();

test("a note's stored picture is shown from a blob URL fetched with the token; a remote one is not loaded", async () => {
  const alice = await new Api(server.url).newUser("pictures");
  const file = await alice.api.request("POST", "/api/files", { body: new Uint8Array(DOT), headers: { "content-type": "image/png" } });
  expect(file.status).toBe(201);
  const content = `A red dot, stored here:\n\n![a red dot](${file.body.url})\n\nAnd one from afar: ![far away](https://example.com/far.png)`;
  expect((await alice.api.post("/api/notes", { title: "Dot", content, tags: [] })).status).toBe(201);

  const context = await browser.newContext();
  const page = await context.newPage();
  const watch = watchPage(page);
  const fileRequests: (string | undefined)[] = [];
  page.on("request", (request) => {
    if (request.url().includes("/api/files/")) fileRequests.push(request.headers().authorization);
  });
  await page.goto(`${server.url}/graph`);
  await logIn(page, alice);
  const search = page.getByRole("searchbox", { name: "Search notes" });
  await search.fill("dot");
  await search.press("Enter");
  await page.getByRole("list", { name: "Search results" }).getByRole("button", { name: /Dot/ }).click();
  const note = page.getByRole("article", { name: "Dot" });
  await note.waitFor();
  const picture = note.getByRole("img", { name: "a red dot" });
  await picture.waitFor();
  await page.waitForFunction(() => (document.querySelector("img.stored-image") as HTMLImageElement | null)?.naturalWidth === 1);
  expect(await picture.getAttribute("src")).toMatch(/^blob:/);
  expect(await note.locator("img").count()).toBe(1);
  expect(await note.textContent()).toContain("[image: far away]");
  expect(fileRequests).toEqual([expect.stringMatching(/^Bearer /)]);
  const token = await page.evaluate(() => sessionStorage.getItem("rhizome.access_token"));
  await context.close();
  expect(watch.requests.filter((url) => !url.startsWith(`${server.url}/`) && !url.startsWith("blob:"))).toEqual([]);
  expect(watch.requests.filter((url) => token && url.includes(token))).toEqual([]);
  expect(watch.errors).toEqual([]);
});

test("a link to a stored file (a document's original) is fetched with the token and saved as a download", async () => {
  const alice = await new Api(server.url).newUser("originals");
  const file = await alice.api.request("POST", "/api/files", { body: new Uint8Array(DOT), headers: { "content-type": "image/png" } });
  expect(file.status).toBe(201);
  expect((await alice.api.post("/api/notes", { title: "Report", content: `The report's pages.\n\n[original](${file.body.url})`, tags: [] })).status).toBe(201);

  const context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  const watch = watchPage(page);
  await page.goto(`${server.url}/graph`);
  await logIn(page, alice);
  const search = page.getByRole("searchbox", { name: "Search notes" });
  await search.fill("report");
  await search.press("Enter");
  await page.getByRole("list", { name: "Search results" }).getByRole("button", { name: /Report/ }).click();
  const note = page.getByRole("article", { name: "Report" });
  const [download] = await Promise.all([page.waitForEvent("download"), note.getByRole("link", { name: "original" }).click()]);
  expect(download.suggestedFilename()).toBe(`${file.body.id}.png`);
  expect(Buffer.from(await Bun.file((await download.path())!).arrayBuffer())).toEqual(DOT);
  expect(page.url()).toContain("/graph");
  await context.close();
  expect(watch.errors).toEqual([]);
});
