import { describe, expect, test } from "bun:test";
import { afterAll } from "bun:test";
import { eq } from "drizzle-orm";
import { feedItems, feeds, importTasks, users } from "../../../src/db/schema";
import { pollFeed, type PollRun } from "../../../src/modules/feeds/poll-feed";
import { createConditionalFetcher } from "../../../src/modules/imports/safe-fetch/fetch-conditional";
import { unheardChanges } from "../../support/changes";
import { startFeedServer } from "../../support/feed-server";
import { notesDatabaseForThisFile } from "../../support/notes-database";

// The fetch job of one feed against a loopback host that answers like real ones: validators and
// 304, compression, 429 with Retry-After, redirects, malformed XML, a body past 5 MiB; the clock is
// the test's, so backoff and the 7-day pause are checked to the minute.

const host = startFeedServer();
afterAll(() => host.stop());
const database = await notesDatabaseForThisFile();
const db = database.db;
const [user] = await db.insert(users).values({ username: "poller", usernameKey: "poller", passwordHash: "x", createdAt: 1 }).returning({ id: users.id });
const userId = user!.id;
const queued: number[] = [];
const fetch = createConditionalFetcher({ allowPrivateNetworks: true, maxBodyBytes: 5 * 1024 * 1024 });
let clock = Date.parse("2026-11-03T10:00:00Z");
const run: PollRun = { db, fetch, importQueue: { enqueueImport: async (task) => (queued.push(task.id), true), findImportJob: async () => null }, changes: unheardChanges, now: () => clock, random: () => 0.5 };
const HOUR = 3600_000;

let paths = 0;
/** A feed row as a subscription leaves it (already read once, unless `first`), due now. */
async function feedAt(path: string, options: { first?: boolean; interval?: number; backfill?: number } = {}) {
  const [row] = await db
    .insert(feeds)
    .values({ userId, url: host.url(path), kind: "rss", intervalMinutes: options.interval ?? 60, backfill: options.backfill ?? 5, nextFetchAt: clock, backfilled: !options.first, createdAt: clock, updatedAt: clock, tags: JSON.stringify(["news"]) })
    .returning();
  return row!;
}
const poll = (feed: { id: number }) => pollFeed(run, { feedId: feed.id, userId });
const read = async (id: number) => (await db.select().from(feeds).where(eq(feeds.id, id)))[0]!;
const itemsOf = (id: number) => db.select().from(feedItems).where(eq(feedItems.feedId, id));
const rss = (items: string[]) => `<?xml version="1.0"?><rss version="2.0"><channel><title>Polled</title><link>${host.origin}/</link>${items.map((id) => `<item><title>Item ${id}</title><link>${host.origin}/posts/${id}</link><guid>${id}</guid><pubDate>Mon, 02 Nov 2026 ${String(10 + Number(id.replace(/\D/g, "") || 0) % 10).padStart(2, "0")}:00:00 GMT</pubDate></item>`).join("")}</channel></rss>`;
const unique = () => `/feed-${++paths}.xml`;

describe("polling a feed", () => {
  test("the first fetch imports the newest `backfill` items and skips the rest; later ones import what is new", async () => {
    const path = unique();
    host.serve(path, { body: rss(["a1", "a2", "a3", "a4"]), type: "application/rss+xml" });
    const feed = await feedAt(path, { first: true, backfill: 2 });
    expect(await poll(feed)).toBe("read");
    const items = await itemsOf(feed.id);
    expect(items.filter((item) => item.state === "queued").map((item) => item.guid).sort()).toEqual(["a3", "a4"]);
    expect(items.filter((item) => item.state === "skipped").map((item) => item.guid).sort()).toEqual(["a1", "a2"]);
    const tasks = await db.select().from(importTasks).where(eq(importTasks.feedId, feed.id));
    expect(tasks.map((task) => ({ platform: task.platform, tags: JSON.parse(task.tags!) }))).toEqual([
      { platform: "web", tags: ["feed", "news"] },
      { platform: "web", tags: ["feed", "news"] },
    ]);
    expect(queued).toEqual(tasks.map((task) => task.id));
    // Seen items are never imported again; a new one is.
    host.serve(path, { body: rss(["a1", "a2", "a3", "a4", "a5"]), type: "application/rss+xml" });
    clock += 2 * HOUR;
    expect(await poll(feed)).toBe("read");
    expect((await itemsOf(feed.id)).filter((item) => item.state === "queued").map((item) => item.guid).sort()).toEqual(["a3", "a4", "a5"]);
  });

  test("ETag and Last-Modified are sent back; a 304 changes nothing but the schedule", async () => {
    const path = unique();
    host.serve(path, { body: rss(["b1"]), type: "application/rss+xml", etag: '"v1"', lastModified: "Mon, 02 Nov 2026 10:00:00 GMT" });
    const feed = await feedAt(path);
    await poll(feed);
    const after = await read(feed.id);
    expect(after).toMatchObject({ etag: '"v1"', lastModified: "Mon, 02 Nov 2026 10:00:00 GMT", lastFetchedAt: clock, nextFetchAt: clock + HOUR, failures: 0 });
    clock += HOUR;
    expect(await poll(feed)).toBe("unchanged");
    expect(host.requestsTo(path).at(-1)).toMatchObject({ ifNoneMatch: '"v1"', ifModifiedSince: "Mon, 02 Nov 2026 10:00:00 GMT" });
    expect(await read(feed.id)).toMatchObject({ lastFetchedAt: clock, nextFetchAt: clock + HOUR, lastError: null });
    expect(await itemsOf(feed.id)).toHaveLength(1);
  });

  test("a feed not yet due is left alone (a second job for it does nothing)", async () => {
    const path = unique();
    host.serve(path, { body: rss(["c1"]), type: "application/rss+xml" });
    const feed = await feedAt(path);
    await poll(feed);
    const requests = host.requestsTo(path).length;
    expect(await poll(feed)).toBe("skipped");
    expect(host.requestsTo(path)).toHaveLength(requests);
  });

  test.each(["gzip", "br", "deflate"] as const)("a %s body is read", async (encoding) => {
    const path = unique();
    host.serve(path, { body: rss(["d1", "d2"]), type: "application/rss+xml", encoding });
    const feed = await feedAt(path);
    expect(await poll(feed)).toBe("read");
    expect(host.requestsTo(path).at(-1)!.acceptEncoding).toContain(encoding);
    expect(await itemsOf(feed.id)).toHaveLength(2);
  });

  test("429 with Retry-After: a failure whose wait is at least the server's; failures double up to 24 h", async () => {
    const path = unique();
    host.serve(path, { body: "", type: "text/plain", status: 429, retryAfter: "7200" });
    const feed = await feedAt(path, { interval: 15 });
    expect(await poll(feed)).toBe("failed");
    let after = await read(feed.id);
    expect(after.lastError).toBe("The feed answered HTTP 429 (too many requests), asking to wait 7200 s");
    expect(after).toMatchObject({ failures: 1, failingSince: clock, nextFetchAt: clock + 2 * HOUR, lastFetchedAt: null });
    // 503 with an HTTP date; then plain failures double the interval: 15, 30, 60 … minutes, at most 24 h.
    host.serve(path, { body: "", type: "text/plain", status: 503, retryAfter: new Date(clock + 3 * HOUR).toUTCString() });
    clock = after.nextFetchAt;
    await poll(feed);
    after = await read(feed.id);
    expect(after.nextFetchAt - clock).toBe(1 * HOUR);
    host.serve(path, { body: "", type: "text/plain", status: 500 });
    const waits: number[] = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      clock = after.nextFetchAt;
      await poll(feed);
      after = await read(feed.id);
      waits.push((after.nextFetchAt - clock) / 60_000);
    }
    expect(waits).toEqual([60, 120, 240, 480, 960, 1440, 1440, 1440, 1440, 1440]);
    expect(after.lastError).toBe("The feed answered HTTP 500");
    // A success clears the record.
    host.serve(path, { body: rss(["e1"]), type: "application/rss+xml" });
    clock = after.nextFetchAt;
    await poll(feed);
    expect(await read(feed.id)).toMatchObject({ failures: 0, failingSince: null, lastError: null, nextFetchAt: clock + 15 * 60_000 });
  });

  test("a feed failing for 7 days in a row is paused with its reason", async () => {
    const path = unique();
    host.serve(path, { body: host.fixture("malformed.xml"), type: "application/xml" });
    const feed = await feedAt(path, { interval: 1440 });
    const started = clock;
    let after = await read(feed.id);
    while (!after.paused) {
      clock = after.nextFetchAt;
      expect(await poll(feed)).toBe("failed");
      after = await read(feed.id);
      expect(after.lastError).toContain("no longer serves a feed");
    }
    expect(clock - started).toBeGreaterThanOrEqual(7 * 24 * HOUR);
    expect(after.lastError).toStartWith("Paused after failing for 7 days: The address no longer serves a feed");
    clock += 48 * HOUR;
    expect(await poll(feed)).toBe("skipped");
  });

  test("a 301 or 308 moves the feed to its new address; a 302 does not", async () => {
    for (const [status, moves] of [[301, true], [308, true], [302, false]] as const) {
      const from = unique();
      const to = unique();
      host.serve(from, { body: "", type: "text/plain", status, location: to });
      host.serve(to, { body: rss([`f${status}`]), type: "application/rss+xml" });
      const feed = await feedAt(from);
      expect(await poll(feed)).toBe("read");
      expect((await read(feed.id)).url).toBe(host.url(moves ? to : from));
    }
  });

  test("a body past 5 MiB is a failure, and so is a blocked address", async () => {
    const path = unique();
    host.serve(path, { body: `<rss version="2.0"><channel><title>big</title>${"<item><title>x</title></item>".repeat(200_000)}</channel></rss>`, type: "application/rss+xml" });
    const feed = await feedAt(path);
    expect(await poll(feed)).toBe("failed");
    expect((await read(feed.id)).lastError).toContain("larger than 5 MiB");
    const guarded: PollRun = { ...run, fetch: createConditionalFetcher({ allowPrivateNetworks: false }) };
    const local = await feedAt(unique());
    expect(await pollFeed(guarded, { feedId: local.id, userId })).toBe("failed");
    expect((await read(local.id)).lastError).toContain("imports only reach public addresses");
  });

  test("a GBK feed (declared in its XML declaration, not its Content-Type) reads as Chinese", async () => {
    const path = unique();
    const ascii = (text: string) => [...Buffer.from(text, "latin1")];
    const zhongwen = [0xd6, 0xd0, 0xce, 0xc4]; // 中文 in GBK
    const body = new Uint8Array([
      ...ascii('<?xml version="1.0" encoding="GBK"?><rss version="2.0"><channel><title>'),
      ...zhongwen,
      ...ascii(`</title><link>${host.origin}/</link><item><title>`),
      ...zhongwen,
      ...ascii(`</title><link>${host.origin}/zh/1</link><guid isPermaLink="false">zh-1</guid></item></channel></rss>`),
    ]);
    host.serve(path, { body, type: "application/xml" });
    const feed = await feedAt(path);
    expect(await poll(feed)).toBe("read");
    expect((await read(feed.id)).title).toBe("中文");
    expect((await itemsOf(feed.id))[0]!.title).toBe("中文");
  });

  test("the jitter is ±10 % of the interval", async () => {
    const path = unique();
    host.serve(path, { body: rss(["g1"]), type: "application/rss+xml" });
    const seen: number[] = [];
    for (const random of [0, 1]) {
      const feed = await feedAt(`${path}?${random}`);
      await pollFeed({ ...run, random: () => random }, { feedId: feed.id, userId });
      seen.push(((await read(feed.id)).nextFetchAt - clock) / 60_000);
    }
    expect(seen).toEqual([54, 66]);
  });
});
