// The `Feeds` view, by the contract's names ("Feeds and follows", "The whole service in the
// page"): reached from the `Feeds` link; `Feed address` and `Subscribe`; the list with title, last
// fetched, last error and paused; `Refresh` and `Unsubscribe` per feed; `Import OPML` (a file
// picker) and `Export OPML` (a download) — at 390 px as at 1400 px, with no console error but the
// refusals a test provokes, and no request off the origin.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import type { BrowserContext, Page } from "playwright-core";
import { chromiumForThisFile, logIn, watchPage, type PageWatch } from "../support/browser";
import { startFeedServer } from "../support/feed-server";
import { serverForThisFile } from "../support/server";

const browser = await chromiumForThisFile();
const host = startFeedServer();
afterAll(() => host.stop());
const BLOG = { "https://blog.example.org": "ORIGIN/blog" };
host.serve("/blog/feed/", { body: host.fixture("wordpress.rss", BLOG), type: "application/rss+xml", etag: '"1"' });
host.serve("/essays/atom.xml", { body: host.fixture("summary-only.atom", { "https://essays.example.com/": "ORIGIN/essays/" }), type: "application/atom+xml" });
host.serve("/gone.xml", { body: "", type: "text/plain", status: 410 });
const { server, api } = await serverForThisFile({ IMPORT_ALLOW_PRIVATE_NETWORKS: "true" });

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1400, height: 900 };
const opened: { context: BrowserContext; watch: PageWatch }[] = [];
let expectedFailures: RegExp[] = [];

afterEach(async () => {
  const allowed = expectedFailures;
  expectedFailures = [];
  for (const { context, watch } of opened.splice(0)) {
    await context.close().catch(() => {});
    expect(watch.requests.filter((url) => !url.startsWith(`${server.url}/`) && !url.startsWith("blob:") && !url.startsWith("data:"))).toEqual([]);
    expect(watch.errors.filter((error) => !allowed.some((pattern) => pattern.test(`${error.text} ${error.url}`)))).toEqual([]);
  }
});

async function openFeeds(viewport: { width: number; height: number }): Promise<Page> {
  const user = await api.newUser("feedpage");
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  const watch = watchPage(page);
  opened.push({ context, watch });
  page.on("dialog", (dialog) => void dialog.accept());
  await page.goto(`${server.url}/`);
  await logIn(page, user);
  await page.locator('ul[aria-label="Notes"][data-loaded]').waitFor();
  await page.getByRole("link", { name: "Feeds" }).click();
  expect(new URL(page.url()).pathname).toBe("/feeds");
  await page.getByRole("heading", { name: "Feeds" }).waitFor();
  return page;
}

const feedList = (page: Page) => page.getByRole("list", { name: "Followed feeds" });
const noHorizontalScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe("the Feeds view", () => {
  for (const [label, viewport] of [["desktop", DESKTOP], ["phone", PHONE]] as const) {
    test(`${label}: subscribe, see it fetched, refresh, export and import OPML, unsubscribe`, async () => {
      const page = await openFeeds(viewport);
      await page.getByLabel("Feed address").fill(host.url("/blog/feed/"));
      await page.getByRole("button", { name: "Subscribe", exact: true }).click();
      const blog = feedList(page).getByRole("listitem").filter({ hasText: "Behavioural Notes" });
      await blog.waitFor();
      await expect(page.getByRole("alert").filter({ hasText: "Following “Behavioural Notes”" }).count()).resolves.toBe(1);
      // Fetched in the background: Refresh shows it once it has been.
      await blog.getByRole("button", { name: "Refresh" }).click();
      await blog.getByText(/^Last fetched /).waitFor({ timeout: 15_000 });
      expect(await noHorizontalScroll(page)).toBe(true);

      // A refusal is said where the person acted.
      expectedFailures = [/400/];
      await page.getByLabel("Feed address").fill(host.url("/gone.xml"));
      await page.getByRole("button", { name: "Subscribe", exact: true }).click();
      await page.getByText("answered HTTP 410").waitFor();

      const download = page.waitForEvent("download");
      await page.getByRole("button", { name: "Export OPML" }).click();
      const file = await download;
      expect(file.suggestedFilename()).toBe("rhizome-feeds.opml");
      const exported = fs.readFileSync((await file.path())!, "utf8");
      expect(exported).toContain(`xmlUrl="${host.url("/blog/feed/")}"`);

      const chooser = page.waitForEvent("filechooser");
      await page.getByRole("button", { name: "Import OPML" }).click();
      await (await chooser).setFiles({
        name: "subscriptions.opml",
        mimeType: "text/x-opml",
        buffer: Buffer.from(`<?xml version="1.0"?><opml version="2.0"><body><outline text="Essays"><outline type="rss" text="Slow Essays" xmlUrl="${host.url("/essays/atom.xml")}"/></outline><outline type="rss" text="Blog" xmlUrl="${host.url("/blog/feed/")}"/></body></opml>`),
      });
      await page.getByText("Added 1 feed from subscriptions.opml. Skipped 1").waitFor();
      const essays = feedList(page).getByRole("listitem").filter({ hasText: "Slow Essays" });
      await essays.getByText("tags: Essays").waitFor();

      await blog.getByRole("button", { name: "Unsubscribe" }).click();
      await blog.waitFor({ state: "detached" });
      expect(await feedList(page).getByRole("listitem").count()).toBe(1);
    });
  }

  test("a feed that keeps failing shows its last error, and a paused one says so", async () => {
    const page = await openFeeds(DESKTOP);
    host.serve("/flaky.xml", { body: host.fixture("wordpress.rss", BLOG), type: "application/rss+xml" });
    await page.getByLabel("Feed address").fill(host.url("/flaky.xml"));
    await page.getByRole("button", { name: "Subscribe", exact: true }).click();
    const flaky = feedList(page).getByRole("listitem").filter({ hasText: "Behavioural Notes" });
    await flaky.waitFor();
    host.serve("/flaky.xml", { body: host.fixture("malformed.xml"), type: "application/xml" });
    // The first fetch reads it; a refresh then finds it broken.
    await page.waitForTimeout(1500);
    await flaky.getByRole("button", { name: "Refresh" }).click();
    await flaky.getByText(/^Last error: The address no longer serves a feed/).waitFor({ timeout: 15_000 });
    await flaky.getByRole("button", { name: "Pause" }).click();
    await flaky.getByText("Paused", { exact: true }).waitFor();
    await flaky.getByRole("button", { name: "Resume" }).waitFor();
  });
});
