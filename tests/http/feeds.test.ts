import { afterAll, describe, expect, test } from "bun:test";
import { expectError } from "../support/api";
import { startFeedServer } from "../support/feed-server";
import { serverForThisFile } from "../support/server";
import { until } from "../support/until";

// CONTRACT "Feeds and follows": subscriptions (fields, defaults, limits, 409s, 400s), discovery
// from a page, OPML in and out, and items becoming import tasks — against a loopback feed host.

const host = startFeedServer();
afterAll(() => host.stop());
const BLOG = { "https://blog.example.org": "ORIGIN/blog" };
host.serve("/blog/feed/", { body: host.fixture("wordpress.rss", BLOG), type: "application/rss+xml; charset=UTF-8", etag: '"wp-1"' });
host.serve("/blog/", { body: host.fixture("page-with-alternate.html", BLOG).replace('<base href="ORIGIN/blog/">', "").replace("feed/?lang=en&amp;x=1", "feed/"), type: "text/html; charset=utf-8" });
host.serve("/blog/2026/10/28/anchoring/", {
  body: "<html><head><title>Anchors aweigh</title></head><body><article><h1>Anchors aweigh: a short note on anchoring</h1><p>Arbitrary numbers move estimates, even when everyone knows they are arbitrary. The effect survives incentives and expertise.</p></article></body></html>",
  type: "text/html",
});
host.serve("/blog/wp-content/uploads/2026/10/curve.png", { body: new Uint8Array(0), type: "image/png", status: 404 });
host.serve("/essays/atom.xml", { body: host.fixture("summary-only.atom", { "https://essays.example.com/": "ORIGIN/essays/" }), type: "application/atom+xml" });
host.serve("/essays/", { body: '<!doctype html><html><head><title>Slow Essays</title><link rel="alternate" type="application/atom+xml" href="atom.xml"></head><body>Essays</body></html>', type: "text/html" });
host.serve("/mia/feed.json", { body: host.fixture("jsonfeed.json", { "https://mia.example.net/": "ORIGIN/mia/" }), type: "application/feed+json" });
host.serve("/not-a-feed", { body: "<html><head><title>Nothing</title></head><body><p>No feed here.</p></body></html>", type: "text/html" });
host.serve("/broken.xml", { body: host.fixture("malformed.xml"), type: "application/xml" });

const { api } = await serverForThisFile({ IMPORT_ALLOW_PRIVATE_NETWORKS: "true" });
const { api: alice } = await api.newUser("feedalice");
const { api: bob } = await api.newUser("feedbob");

/** Waits until the feed has been fetched (its items recorded). */
const fetched = (client: typeof alice, id: number) =>
  until(async () => (await client.get(`/api/feeds/${id}`)).body, { what: `feed ${id} to be fetched`, done: (feed) => feed.last_fetched_at !== null || feed.last_error !== null, timeoutMs: 20_000 });

describe("subscribing", () => {
  test("a feed: 201 with every field and its defaults; fetched at once", async () => {
    const created = await alice.post("/api/feeds", { url: host.url("/blog/feed/") });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(
      ["id", "url", "title", "site_url", "kind", "tags", "interval_minutes", "backfill", "paused", "last_fetched_at", "next_fetch_at", "last_error", "items_seen", "items_imported", "created_at"].sort(),
    );
    expect(created.body).toMatchObject({ url: host.url("/blog/feed/"), title: "Behavioural Notes", site_url: `${host.origin}/blog`, kind: "rss", tags: [], interval_minutes: 60, backfill: 5, paused: false, last_error: null });
    const feed = await fetched(alice, created.body.id);
    expect(feed.items_seen).toBe(2);
    expect(Date.parse(feed.next_fetch_at) - Date.parse(feed.last_fetched_at)).toBeGreaterThan(54 * 60_000);
  });

  test("the same URL twice is a 409; another user may follow it too", async () => {
    expectError(await alice.post("/api/feeds", { url: host.url("/blog/feed/") }), 409, "CONFLICT");
    expect((await bob.post("/api/feeds", { url: host.url("/blog/feed/"), tags: ["psych"] })).status).toBe(201);
  });

  test("a web page is followed through its first alternate link; the page itself is no duplicate", async () => {
    const { status, body } = await alice.post("/api/feeds", { url: host.url("/essays/") .replace("/essays/", "/blog/") });
    expect(status).toBe(409); // the page names the blog's feed, already followed
    expect(body.message).toContain("already follow");
  });

  test("Atom and JSON Feed are their own kinds; tags, interval and backfill are kept", async () => {
    const atom = await alice.post("/api/feeds", { url: host.url("/essays/atom.xml"), tags: ["essays", " slow "], interval_minutes: 15, backfill: 0 });
    expect(atom.body).toMatchObject({ kind: "atom", title: "Slow Essays", tags: ["essays", "slow"], interval_minutes: 15, backfill: 0 });
    const json = await alice.post("/api/feeds", { url: host.url("/mia/feed.json") });
    expect(json.body).toMatchObject({ kind: "json", title: "Microblog of Mia", site_url: `${host.origin}/mia/` });
  });

  test("what is no feed is a 400 saying so; bad input is a 400 naming the field", async () => {
    const page = await alice.post("/api/feeds", { url: host.url("/not-a-feed") });
    expectError(page, 400, "BAD_REQUEST");
    expect(page.body.message).toContain("names no feed");
    const broken = await alice.post("/api/feeds", { url: host.url("/broken.xml") });
    expectError(broken, 400, "BAD_REQUEST");
    expect(broken.body.message).toContain("parses as a feed");
    const missing = await alice.post("/api/feeds", { url: host.url("/nothing-here") });
    expect(missing.body.message).toContain("HTTP 404");
    for (const input of [{ url: "ftp://x.example/feed" }, { url: host.url("/blog/feed/"), interval_minutes: 14 }, { url: host.url("/blog/feed/"), interval_minutes: 1441 }, { url: host.url("/blog/feed/"), backfill: 51 }, {}]) {
      expectError(await alice.post("/api/feeds", input), 400, "BAD_REQUEST");
    }
  });
});

describe("reading and changing feeds", () => {
  test("the list is paginated, newest first; another user's feed is a 404", async () => {
    const page = await alice.get("/api/feeds?page=1&size=2");
    expect(page.body).toMatchObject({ total: 3, page: 1, size: 2, pages: 2 });
    expect(page.body.items.map((feed: any) => feed.kind)).toEqual(["json", "atom"]);
    const bobs = (await bob.get("/api/feeds")).body.items[0];
    expectError(await alice.get(`/api/feeds/${bobs.id}`), 404, "NOT_FOUND");
    expectError(await alice.request("PATCH", `/api/feeds/${bobs.id}`, { json: { paused: true } }), 404, "NOT_FOUND");
    expectError(await alice.delete(`/api/feeds/${bobs.id}`), 404, "NOT_FOUND");
    expectError(await alice.get(`/api/feeds/${bobs.id}/items`), 404, "NOT_FOUND");
  });

  test("PATCH changes tags, interval and pause; refresh of a paused feed is a 409; an empty PATCH a 400", async () => {
    const feed = (await alice.get("/api/feeds")).body.items.find((item: any) => item.kind === "json");
    const paused = await alice.request("PATCH", `/api/feeds/${feed.id}`, { json: { paused: true, tags: ["mia"], interval_minutes: 120 } });
    expect(paused.body).toMatchObject({ paused: true, tags: ["mia"], interval_minutes: 120, next_fetch_at: null });
    expectError(await alice.post(`/api/feeds/${feed.id}/refresh`), 409, "CONFLICT");
    const resumed = await alice.request("PATCH", `/api/feeds/${feed.id}`, { json: { paused: false } });
    expect(resumed.body.paused).toBe(false);
    expectError(await alice.request("PATCH", `/api/feeds/${feed.id}`, { json: {} }), 400, "BAD_REQUEST");
  });

  test("refresh answers 202 and fetches again", async () => {
    const feed = (await alice.get("/api/feeds")).body.items.find((item: any) => item.kind === "atom");
    await fetched(alice, feed.id);
    const before = host.requestsTo("/essays/atom.xml").length;
    const refreshed = await alice.post(`/api/feeds/${feed.id}/refresh`);
    expect(refreshed.status).toBe(202);
    await until(() => host.requestsTo("/essays/atom.xml").length > before, { what: "a second fetch" });
  });
});

describe("items", () => {
  test("full text is imported without fetching; a short item's page is fetched; notes carry feed tags", async () => {
    const bobsFeed = (await bob.get("/api/feeds")).body.items[0];
    const items = await until(async () => (await bob.get(`/api/feeds/${bobsFeed.id}/items`)).body, {
      what: "both items imported",
      timeoutMs: 30_000,
      done: (page) => page.items.length === 2 && page.items.every((item: any) => item.status === "imported"),
    });
    expect(items.items.map((item: any) => item.title)).toEqual(["Loss aversion, revisited", "Anchors aweigh: a short note on anchoring"]);
    const [full, short] = items.items;
    const note = (await bob.get(`/api/notes/${full.note_id}`)).body;
    expect(note.tags.slice(0, 3)).toEqual(["web", "feed", "psych"]);
    expect(note.tags).toContain("Psychology");
    expect(note.source).toMatchObject({ url: `${host.origin}/blog/2026/11/03/loss-aversion-revisited/`, author: "Jane Doe", published_at: "2026-11-03T09:12:44.000Z" });
    expect(note.content).toContain("Kahneman and Tversky’s prospect theory");
    expect(host.requestsTo("/blog/2026/11/03/loss-aversion-revisited/")).toHaveLength(0);
    expect(host.requestsTo("/blog/2026/10/28/anchoring/").length).toBeGreaterThan(0);
    const task = (await bob.get(`/api/tasks/${short.task_id}`)).body;
    expect(task).toMatchObject({ feed_id: bobsFeed.id, status: "completed", platform: "web" });
    expect((await bob.get(`/api/feeds/${bobsFeed.id}`)).body).toMatchObject({ items_seen: 2, items_imported: 2 });
  });

  test("two users following one feed get their own notes", async () => {
    const alicesFeed = (await alice.get("/api/feeds")).body.items.find((item: any) => item.kind === "rss");
    const items = await until(async () => (await alice.get(`/api/feeds/${alicesFeed.id}/items`)).body, {
      what: "alice's items imported",
      timeoutMs: 30_000,
      done: (page) => page.items.length === 2 && page.items.every((item: any) => item.status === "imported"),
    });
    const bobsFeed = (await bob.get("/api/feeds")).body.items[0];
    const bobs = (await bob.get(`/api/feeds/${bobsFeed.id}/items`)).body.items;
    expect(items.items[0].note_id).not.toBe(bobs[0].note_id);
    expect((await alice.get(`/api/notes/${items.items[0].note_id}`)).body.tags).not.toContain("psych");
    expectError(await alice.get(`/api/notes/${bobs[0].note_id}`), 404, "NOT_FOUND");
  });

  test("backfill 0 records every first item as skipped (relative links resolved against xml:base)", async () => {
    const atom = (await alice.get("/api/feeds")).body.items.find((item: any) => item.kind === "atom");
    const items = (await alice.get(`/api/feeds/${atom.id}/items`)).body.items;
    expect(items.map((item: any) => item.status)).toEqual(["skipped", "skipped"]);
    expect(items[0]).toMatchObject({ title: "On walking", url: `${host.origin}/2026/on-walking`, task_id: null, note_id: null, published_at: "2026-11-02T12:00:00.000Z" });
  });

  test("unsubscribing keeps the notes; the tasks forget the feed", async () => {
    const feed = (await bob.get("/api/feeds")).body.items[0];
    const item = (await bob.get(`/api/feeds/${feed.id}/items`)).body.items[0];
    expect((await bob.delete(`/api/feeds/${feed.id}`)).status).toBe(204);
    expectError(await bob.get(`/api/feeds/${feed.id}`), 404, "NOT_FOUND");
    expect((await bob.get(`/api/notes/${item.note_id}`)).status).toBe(200);
    expect((await bob.get(`/api/tasks/${item.task_id}`)).body.feed_id).toBeNull();
  });
});

describe("OPML", () => {
  test("import adds each feed with its categories as tags; duplicates and non-http addresses are skipped with a reason", async () => {
    const document = host.fixture("subscriptions.opml", { "https://blog.example.org/feed/?a=1&amp;b=2": "ORIGIN/blog/feed/", "https://mia.example.net/feed.json": "ORIGIN/essays/" }).replace("https://pod.example.fm/thinking-aloud/feed.xml", "javascript:alert(1)");
    const { api: carol } = await api.newUser("feedcarol");
    const imported = await carol.request("POST", "/api/feeds/opml", { body: document, headers: { "content-type": "text/x-opml" } });
    expect(imported.status).toBe(200);
    expect(imported.body.added).toBe(2);
    expect(imported.body.skipped).toEqual([{ url: "javascript:alert(1)", reason: "not an http or https address" }]);
    const feeds = (await carol.get("/api/feeds")).body.items;
    const blog = feeds.find((feed: any) => feed.url === host.url("/blog/feed/"));
    expect(blog.tags).toEqual(["Psychology"]);
    // The page outline is read by its first fetch, which follows the page's alternate link.
    const page = feeds.find((feed: any) => feed.url !== host.url("/blog/feed/"));
    const read = await fetched(carol, page.id);
    expect(read).toMatchObject({ kind: "atom", title: "Slow Essays", last_error: null, url: host.url("/essays/atom.xml") });
    const again = await carol.request("POST", "/api/feeds/opml", { body: document, headers: { "content-type": "application/xml" } });
    expect(again.body.skipped.map((entry: any) => entry.reason)).toContain(`already followed (feed ${blog.id})`);
    // The page is added again (its feed is known only once read), and its first fetch finds the feed followed already.
    await until(async () => (await carol.get("/api/feeds")).body.total, { what: "the duplicate gone", done: (total) => total === 2 });
  });

  test("export is OPML 2.0 that imports back", async () => {
    const exported = await alice.get("/api/feeds/opml");
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-type")).toStartWith("text/x-opml");
    expect(exported.headers.get("content-disposition")).toContain("attachment");
    expect(exported.text).toContain('<opml version="2.0">');
    expect(exported.text).toContain(`xmlUrl="${host.url("/blog/feed/")}"`);
    const { api: dave } = await api.newUser("feeddave");
    const imported = await dave.request("POST", "/api/feeds/opml", { body: exported.text, headers: { "content-type": "text/xml" } });
    expect(imported.body).toMatchObject({ added: 3, skipped: [] });
  });

  test("hostile OPML is refused or read as text, never expanded; bodies over 2 MiB are a 413; other types a 415", async () => {
    const { api: eve } = await api.newUser("feedeve");
    const laughs = await eve.request("POST", "/api/feeds/opml", { body: host.fixture("billion-laughs.opml"), headers: { "content-type": "text/x-opml" } });
    expect(laughs.status).toBe(200);
    const feed = (await eve.get("/api/feeds")).body.items[0];
    expect(feed.tags).toEqual(["&lol9;"]);
    const external = await eve.request("POST", "/api/feeds/opml", { body: host.fixture("external-dtd.opml"), headers: { "content-type": "application/xml" } });
    expectError(external, 400, "BAD_REQUEST");
    expectError(await eve.request("POST", "/api/feeds/opml", { body: "x".repeat(2 * 1024 * 1024 + 10), headers: { "content-type": "text/x-opml" } }), 413, "PAYLOAD_TOO_LARGE");
    expectError(await eve.request("POST", "/api/feeds/opml", { body: "<opml/>", headers: { "content-type": "text/plain" } }), 415, "UNSUPPORTED_MEDIA_TYPE");
  });
});
