import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { drizzle } from "drizzle-orm/libsql";
import * as schema from "../../src/db/schema";
import { createJobCatalogue, importQueueOn } from "../../src/jobs/catalogue";
import { createQueue } from "../../src/jobs/queue";
import { silentLog } from "../../src/jobs/log";
import { createImporters } from "../../src/modules/imports/platforms";
import { reconcileImportTasks } from "../../src/modules/imports/reconcile-tasks";
import { runImportTask } from "../../src/modules/imports/run-import";
import { createSafeFetcher } from "../../src/modules/imports/safe-fetch/fetch-page";
import type { Fetcher, ImportedDocument } from "../../src/modules/imports/platforms/types";
import { Api, expectError } from "../support/api";
import { readFixture as fixture } from "../support/platform-fixtures";
import { startPlatformServer } from "../support/platform-server";
import { serverForThisFile } from "../support/server";
import { settleTask } from "../support/settle-task";
import { unheardChanges } from "../support/changes";

const WECHAT_CANONICAL =
  "https://mp.weixin.qq.com/s?__biz=MzI5NjQ0MzM1Mg==&mid=2247491234&idx=1&sn=3f2a9c1e7b8d4f6a0c5e2b1d9f8a7c6e&chksm=ec4c1a2fdb3b93391f2e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a";

const { server, api, db } = await serverForThisFile({ IMPORT_ALLOW_PRIVATE_NETWORKS: "true" });
const { server: guarded } = await serverForThisFile();
const alice = (await api.newUser("importer")).api;
let site: ReturnType<typeof Bun.serve>;
const hits = new Map<string, number>();

beforeAll(async () => {
  // A loopback stand-in for the platforms: pages, a slow page, a flaky page and a dead link.
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const { pathname } = new URL(request.url);
      hits.set(pathname, (hits.get(pathname) ?? 0) + 1);
      const html = (body: string, status = 200) => new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8" } });
      if (pathname === "/s/article") return html(fixture("wechat/article.html"));
      if (pathname === "/s/deleted") return html(fixture("wechat/deleted.html"));
      if (pathname === "/blog/sqlite") return html(fixture("web/blog-article.html"));
      if (pathname === "/slow") {
        await Bun.sleep(1500);
        return html(fixture("web/blog-article.html"));
      }
      if (pathname === "/flaky") return hits.get(pathname)! === 1 ? html("busy", 503) : html(fixture("web/blog-article.html"));
      return html("<h1>Not found</h1>", 404);
    },
  });
});
afterAll(async () => {
  site.stop(true);
});

const siteUrl = (pathname: string) => `http://127.0.0.1:${site.port}${pathname}`;

/** Settles a task, recording every distinct state seen on the way. */
async function settle(client: Api, id: number, timeoutMs = 20_000) {
  const seen: { status: string; progress: number; message: string }[] = [];
  const task = await settleTask(client, id, {
    timeoutMs,
    onPoll: ({ status, progress, message }) => {
      const last = seen.at(-1);
      if (!last || last.status !== status || last.progress !== progress || last.message !== message) seen.push({ status, progress, message });
    },
  });
  return { task, seen };
}

describe("pasted content", () => {
  test("plain text becomes a note tagged with the platform, with nothing fetched", async () => {
    const created = await alice.post("/api/tasks", { platform: "xiaohongshu", content: "周末的咖啡馆\n\n一家安静的小店 #咖啡" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ platform: "xiaohongshu", url: null, status: "pending", progress: 0, error: null, note_id: null });
    const { task } = await settle(alice, created.body.id);
    expect(task).toMatchObject({ status: "completed", progress: 100, error: null });
    expect(task.started_at).not.toBeNull();
    expect(task.finished_at).not.toBeNull();
    const note = await alice.get(`/api/notes/${task.note_id}`);
    expect(note.body.title).toBe("周末的咖啡馆");
    expect(note.body.tags[0]).toBe("xiaohongshu");
    expect(note.body.content).toContain("一家安静的小店");
    expect(note.body.source).toEqual({ platform: "xiaohongshu", url: null, author: null, published_at: null });
  });

  test("pasted text with a URL keeps that URL as its source", async () => {
    const created = await alice.post("/api/tasks", { platform: "web", content: "Notes on a talk", url: "https://talks.example.com/2026/sqlite" });
    const { task } = await settle(alice, created.body.id);
    const note = (await alice.get(`/api/notes/${task.note_id}`)).body;
    expect(note.source).toEqual({ platform: "web", url: "https://talks.example.com/2026/sqlite", author: null, published_at: null });
  });

  test("the saved HTML of a WeChat article goes through the WeChat parser", async () => {
    const created = await alice.post("/api/tasks", { platform: "wechat", content: fixture("wechat/article.html") });
    const { task } = await settle(alice, created.body.id);
    expect(task.status).toBe("completed");
    const note = (await alice.get(`/api/notes/${task.note_id}`)).body;
    expect(note.title).toBe("从零实现一个 Redis 分布式锁：原理、坑与最佳实践");
    expect(note.content).toContain("mmbiz.qpic.cn");
    expect(note.content).not.toContain("data-src");
    // Nothing was fetched, and still the page names its canonical address, author and time.
    expect(note.source).toEqual({ platform: "wechat", url: WECHAT_CANONICAL, author: "轩辕 (Account: 轩辕的编程宇宙)", published_at: "2025-11-10T04:00:10.000Z" });
  });

  test("a pasted deleted page fails clearly and makes no note", async () => {
    const before = (await alice.get("/api/notes")).body.total;
    const created = await alice.post("/api/tasks", { platform: "wechat", content: fixture("wechat/deleted.html") });
    const { task } = await settle(alice, created.body.id);
    expect(task.status).toBe("failed");
    expect(task.note_id).toBeNull();
    expect(task.error).toMatch(/deleted/i);
    expect(task.counts).toEqual({ created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 1 });
    expect((await alice.get("/api/notes")).body.total).toBe(before);
  });
});

describe("fetched URLs", () => {
  test("a web article is fetched, moves through real steps, and links back to its source", async () => {
    const url = siteUrl("/slow");
    const created = await alice.post("/api/tasks", { platform: "web", url });
    const { task, seen } = await settle(alice, created.body.id);
    expect(task.status).toBe("completed");
    expect(seen.map((state) => state.status)).toContain("running");
    const progress = seen.map((state) => state.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(seen.some((state) => state.message.startsWith("Fetching"))).toBe(true);
    const note = (await alice.get(`/api/notes/${task.note_id}`)).body;
    expect(note.title).toBe("Why SQLite Is Enough for Most Side Projects");
    // The page names its canonical address; the note links there.
    expect(note.content.trimEnd()).toEndWith(`Source: <${siteUrl("/2025/03/sqlite-is-enough/")}>`);
    expect(note.tags[0]).toBe("web");
    expect(note.source).toEqual({ platform: "web", url: siteUrl("/2025/03/sqlite-is-enough/"), author: "Maya Lindqvist", published_at: "2025-03-14T07:30:00.000Z" });
  });

  test("a link that is not the platform's fails at once with a message saying whose links it takes", async () => {
    const created = await alice.post("/api/tasks", { platform: "wechat", url: siteUrl("/s/article") });
    const { task } = await settle(alice, created.body.id);
    expect(task.status).toBe("failed");
    expect(task.error).toContain("https://mp.weixin.qq.com/");
    expect(hits.get("/s/article") ?? 0).toBe(0);
  });

  test("a transient failure (503) is retried with backoff, then completes", async () => {
    const created = await alice.post("/api/tasks", { platform: "web", url: siteUrl("/flaky") });
    const { task, seen } = await settle(alice, created.body.id, 25_000);
    expect(task.status).toBe("completed");
    expect(hits.get("/flaky")).toBe(2);
    expect(seen.some((state) => state.message.startsWith("Temporary problem"))).toBe(true);
  });

  test("a 404 fails at once, without retries, saying so", async () => {
    const created = await alice.post("/api/tasks", { platform: "web", url: siteUrl("/gone") });
    const { task } = await settle(alice, created.body.id);
    expect(task.status).toBe("failed");
    expect(task.error).toMatch(/404|not found/i);
    expect(hits.get("/gone")).toBe(1);
  });

  test("a private address is refused when the operator has not allowed it", async () => {
    const { api: user } = await new Api(guarded.url).newUser("guarded");
    const created = await user.post("/api/tasks", { platform: "web", url: siteUrl("/blog/sqlite") });
    const { task } = await settle(user, created.body.id);
    expect(task.status).toBe("failed");
    expect(task.error).toContain("127.0.0.1 is a loopback address");
    expect(hits.get("/blog/sqlite") ?? 0).toBe(0);
  });
});

describe("listing and isolation", () => {
  test("lists the user's tasks newest first in the paginated envelope", async () => {
    const { api: lister } = await api.newUser("tasklist");
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await lister.post("/api/tasks", { platform: "web", content: `note ${i}` })).body.id);
    const page = await lister.get("/api/tasks?size=2");
    expect(page.body).toMatchObject({ total: 3, page: 1, size: 2, pages: 2 });
    expect(page.body.items.map((task: { id: number }) => task.id)).toEqual([ids[2], ids[1]]);
    expectError(await lister.get("/api/tasks?size=101"), 400, "BAD_REQUEST");
  });

  test("another user's task is a 404 and never listed", async () => {
    const { api: bob } = await api.newUser("bob");
    const mine = (await alice.post("/api/tasks", { platform: "web", content: "private" })).body;
    expectError(await bob.get(`/api/tasks/${mine.id}`), 404, "NOT_FOUND");
    expect((await bob.get("/api/tasks")).body.total).toBe(0);
    expectError(await api.get("/api/tasks"), 401, "UNAUTHORIZED");
  });
});

describe("bad input", () => {
  test.each([
    [{ platform: "myspace", content: "x" }, "platform"],
    [{ platform: "web" }, "url"],
    [{ platform: "web", url: "ftp://example.com/file" }, "url"],
    [{ platform: "web", url: "javascript:alert(1)" }, "url"],
    [{ platform: "web", url: `https://example.com/${"a".repeat(2048)}` }, "url"],
    [{ platform: "web", content: "" }, "content"],
  ])("%j is a 400 naming %s", async (body, field) => {
    const response = await alice.post("/api/tasks", body);
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.issues.map((issue: { path: string[] }) => issue.path[0])).toContain(field);
  });

  test("content over 10 MiB is a 400; a body over 12 MiB is a 413", async () => {
    const tooMuch = await alice.post("/api/tasks", { platform: "web", content: "a".repeat(10 * 1024 * 1024 + 1) });
    expectError(tooMuch, 400, "BAD_REQUEST");
    const tooBig = await alice.post("/api/tasks", { platform: "web", content: "a".repeat(12 * 1024 * 1024) });
    expectError(tooBig, 413, "PAYLOAD_TOO_LARGE");
  });
});

describe("consistency between task rows and jobs", () => {
  const orm = () => drizzle(db, { schema });

  async function insertTask(status: "pending" | "running", userId: number) {
    const old = Date.now() - 120_000;
    const result = await db.execute({
      sql: "insert into import_tasks (user_id, platform, content, status, progress, message, created_at, updated_at) values (?, 'web', 'orphaned content', ?, 0, 'Queued', ?, ?) returning id",
      args: [userId, status, old, old],
    });
    return Number(result.rows[0]!.id);
  }

  test("a task whose job is missing, and one stuck running, are queued again by the reconciler and complete", async () => {
    const me = (await alice.get("/api/auth/me")).body;
    const pending = await insertTask("pending", me.id);
    const stuck = await insertTask("running", me.id);
    const queue = createQueue({
      connectionString: server.databaseUrl,
      tasks: createJobCatalogue({ db: orm(), imports: { allowPrivateNetworks: true }, graph: { extractor: "local", llmConcurrency: 1, anthropic: {} }, changes: unheardChanges }),
      log: silentLog,
    });
    try {
      const result = await reconcileImportTasks(orm(), importQueueOn(queue), unheardChanges);
      expect(result.requeued).toBeGreaterThanOrEqual(2);
    } finally {
      await queue.close();
    }
    for (const id of [pending, stuck]) {
      const { task } = await settle(alice, id);
      expect(task.status).toBe("completed");
      expect((await alice.get(`/api/notes/${task.note_id}`)).body.content).toContain("orphaned content");
    }
  });

  test("running the same import job twice creates one note", async () => {
    const me = (await alice.get("/api/auth/me")).body;
    const id = await insertTask("pending", me.id);
    const run = {
      db: orm(),
      fetcher: createSafeFetcher({ allowPrivateNetworks: true }),
      importers: createImporters({}),
      signal: new AbortController().signal,
      attempt: 1,
      maxAttempts: 4,
      changes: unheardChanges,
    };
    const notesBefore = (await alice.get("/api/notes")).body.total;
    await Promise.all([runImportTask(run, { taskId: id, userId: me.id }), runImportTask(run, { taskId: id, userId: me.id })]);
    await runImportTask(run, { taskId: id, userId: me.id });
    expect((await alice.get("/api/notes")).body.total).toBe(notesBefore + 1);
    expect((await alice.get(`/api/tasks/${id}`)).body.status).toBe("completed");
  });

  test("a job for another user's task does nothing", async () => {
    const me = (await alice.get("/api/auth/me")).body;
    const id = await insertTask("pending", me.id);
    const run = { db: orm(), fetcher: createSafeFetcher({ allowPrivateNetworks: true }), importers: createImporters({}), signal: new AbortController().signal, attempt: 1, maxAttempts: 4, changes: unheardChanges };
    const notesBefore = (await alice.get("/api/notes")).body.total;
    await runImportTask(run, { taskId: id, userId: me.id + 999 });
    const row = await db.execute({ sql: "select status, progress, note_id from import_tasks where id = ?", args: [id] });
    expect({ ...row.rows[0] }).toEqual({ status: "pending", progress: 0, note_id: null });
    expect((await alice.get("/api/notes")).body.total).toBe(notesBefore);
  });
});

describe("where an imported note came from", () => {
  const XHS_NOTE = "6650a4f5000000001e0230d5";
  const XHS_TOKEN = "ABm7tPzKxV1cY5nQ8sR2wLdE4fGhJ6kMoN0pU3iTaB9Xc=";
  const xhsLink = `https://www.xiaohongshu.com/explore/${XHS_NOTE}?xsec_token=${encodeURIComponent(XHS_TOKEN)}&xsec_source=pc_feed`;
  const json = (body: string) => new Response(body, { headers: { "content-type": "application/json; charset=utf-8" } });
  const html = (body: string) => new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
  // Every platform's hosts on loopback, answering with the recorded pages.
  const platforms = startPlatformServer((url) => {
    switch (`${url.host}${url.pathname}`) {
      case "mp.weixin.qq.com/s/Lq1fJ8h2cZ3xVYn0KmTr4w":
        return html(fixture("wechat/article.html"));
      case `www.xiaohongshu.com/explore/${XHS_NOTE}`:
        return html(fixture("xiaohongshu/note-page.html"));
      case "api.bilibili.com/x/web-interface/view":
        return json(fixture("bilibili/view.json"));
      case "api.bilibili.com/x/web-interface/view/detail/tag":
        return json(fixture("bilibili/tags.json"));
      case "api.bilibili.com/x/player/wbi/v2":
        return json(fixture("bilibili/player-no-subtitles.json"));
      case "www.iesdouyin.com/share/video/7380912345678901234/":
        return html(fixture("douyin/share-video.html"));
      case "blog.example.com/sqlite":
        return html(fixture("web/blog-article.html"));
    }
    return undefined;
  });
  afterAll(() => platforms.stop());

  /** Runs one import job as the worker would, with `fetcher` in place of the network; answers the task. */
  async function importThroughJob(task: { platform: string; url?: string; content?: string }, options: { fetcher?: Fetcher; parsePasted?: () => ImportedDocument } = {}) {
    const me = (await alice.get("/api/auth/me")).body;
    const now = Date.now();
    const inserted = await db.execute({
      sql: "insert into import_tasks (user_id, platform, url, content, status, progress, message, created_at, updated_at) values (?, ?, ?, ?, 'pending', 0, 'Queued', ?, ?) returning id",
      args: [me.id, task.platform, task.url ?? null, task.content ?? null, now, now],
    });
    const id = Number(inserted.rows[0]!.id);
    const importers = createImporters({});
    if (options.parsePasted) importers.web = { ...importers.web, parsePasted: options.parsePasted };
    const run = { db: drizzle(db, { schema }), fetcher: options.fetcher ?? platforms.fetcher, importers, signal: new AbortController().signal, attempt: 1, maxAttempts: 1, changes: unheardChanges };
    await runImportTask(run, { taskId: id, userId: me.id });
    return (await alice.get(`/api/tasks/${id}`)).body;
  }

  test.each([
    ["wechat", "https://mp.weixin.qq.com/s/Lq1fJ8h2cZ3xVYn0KmTr4w", WECHAT_CANONICAL, "轩辕 (Account: 轩辕的编程宇宙)", "2025-11-10T04:00:10.000Z"],
    ["xiaohongshu", xhsLink, xhsLink, "咖啡续命的小鹿", "2024-05-24T14:32:21.000Z"],
    ["bilibili", "https://www.bilibili.com/video/BV1Xb421E7Lm/?spm_id_from=333.1007", "https://www.bilibili.com/video/BV1Xb421E7Lm", "航空小课堂_老周", "2024-06-10T06:13:20.000Z"],
    ["douyin", "https://www.douyin.com/video/7380912345678901234", "https://www.douyin.com/video/7380912345678901234", "山城小胖哥", "2024-06-15T03:50:56.000Z"],
    ["web", "https://blog.example.com/sqlite", "https://blog.example.com/2025/03/sqlite-is-enough/", "Maya Lindqvist", "2025-03-14T07:30:00.000Z"],
  ])("a %s import names its platform, canonical URL, author and publish time, in the note and the list", async (platform, url, canonical, author, publishedAt) => {
    const task = await importThroughJob({ platform, url });
    expect(task).toMatchObject({ status: "completed", error: null });
    const source = { platform, url: canonical, author, published_at: publishedAt };
    const note = (await alice.get(`/api/notes/${task.note_id}`)).body;
    expect(note.source).toEqual(source);
    const listed = (await alice.get("/api/notes?size=100")).body.items.find((item: { id: number }) => item.id === note.id);
    expect(listed.source).toEqual(source);
  });

  test("a note written here has no source; PUT keeps an imported note's source and cannot set or change one", async () => {
    const written = (await alice.post("/api/notes", { title: "Mine", source: { platform: "web", url: "https://forged.example/" } })).body;
    expect(written.source).toBeNull();
    expect((await alice.put(`/api/notes/${written.id}`, { title: "Still mine", source: { platform: "web" } })).body.source).toBeNull();

    const task = await importThroughJob({ platform: "douyin", url: "https://www.douyin.com/video/7380912345678901234" });
    const imported = (await alice.get(`/api/notes/${task.note_id}`)).body;
    const forged = { platform: "web", url: "https://forged.example/", author: "Mallory", published_at: "2020-01-01T00:00:00.000Z" };
    const updated = await alice.put(`/api/notes/${imported.id}`, { title: "Renamed", tags: ["mine"], content: "rewritten", source: forged });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ title: "Renamed", tags: ["mine"], content: "rewritten", source: imported.source });
    expect((await alice.get(`/api/notes/${imported.id}`)).body.source).toEqual(imported.source);
  });

  test("a hostile title and hostile tags come out under the notes' rules, and PUT accepts the note unchanged", async () => {
    const title = ` \u0001Hostile\ttitle\r\nwith\u007f controls ${"a".repeat(471)}${"🚀".repeat(50)}`;
    const tags = [
      "  Tab\tTag ",
      "Tab\u0000 Tag",
      "x".repeat(65),
      "🚀".repeat(32),
      "🚀".repeat(33),
      "\u0007",
      "web",
      ...Array.from({ length: 40 }, (_, i) => `t${i}`),
    ];
    const task = await importThroughJob(
      { platform: "web", content: "pasted" },
      { parsePasted: () => ({ title, markdown: "Body", tags, author: "\tMaya\nLindqvist\u0007 ", publishedAt: "2025-03-14T08:30:00+01:00" }) },
    );
    expect(task.status).toBe("completed");
    const note = (await alice.get(`/api/notes/${task.note_id}`)).body;
    // 500 units would split the first rocket's surrogate pair, so the cut comes one unit earlier.
    expect(note.title).toBe(`Hostile title with controls ${"a".repeat(471)}`);
    expect(note.tags).toEqual(["web", "Tab Tag", "🚀".repeat(32), ...Array.from({ length: 29 }, (_, i) => `t${i}`)]);
    expect(note.source).toEqual({ platform: "web", url: null, author: "Maya Lindqvist", published_at: "2025-03-14T07:30:00.000Z" });

    const sentBack = await alice.put(`/api/notes/${note.id}`, { title: note.title, content: note.content, tags: note.tags });
    expect(sentBack.status).toBe(200);
    expect({ ...sentBack.body, updated_at: note.updated_at }).toEqual(note);
  });

  test("an imported note whose page gives no usable title gets one naming where it came from", async () => {
    const task = await importThroughJob(
      { platform: "web", content: "pasted", url: "https://blank.example.com/post" },
      { parsePasted: () => ({ title: "\u0001 \t\n", markdown: "Body", tags: [], sourceUrl: "https://blank.example.com/post", publishedAt: "not a date" }) },
    );
    const note = (await alice.get(`/api/notes/${task.note_id}`)).body;
    expect(note.title).toBe("Untitled import from blank.example.com");
    expect(note.source).toEqual({ platform: "web", url: "https://blank.example.com/post", author: null, published_at: null });
  });

  test("importing the same post again finds its note: unchanged, never a duplicate, whatever the link's tracking parameters", async () => {
    const first = await importThroughJob({ platform: "xiaohongshu", url: xhsLink });
    const total = (await alice.get("/api/notes")).body.total;
    const again = await importThroughJob({ platform: "xiaohongshu", url: xhsLink });
    expect(again).toMatchObject({ status: "completed", note_id: first.note_id, counts: { created: 0, updated: 0, unchanged: 1, skipped: 0, failed: 0 }, failures: [] });
    // Another link to the same note id: the same note (its source link follows the newer one).
    const shared = await importThroughJob({ platform: "xiaohongshu", url: xhsLink.replace("pc_feed", "pc_share") });
    expect(shared).toMatchObject({ note_id: first.note_id, counts: { created: 0, updated: 1 } });
    expect((await alice.get("/api/notes")).body.total).toBe(total);
  });

  test("a changed source updates its note, unless the note was edited here since", async () => {
    const url = "https://changing.example.com/post";
    const page = (markdown: string) => () => ({ title: "A changing post", markdown, tags: [], sourceUrl: url });
    const first = await importThroughJob({ platform: "web", url, content: "v1" }, { parsePasted: page("First version") });
    expect(first.counts).toEqual({ created: 1, updated: 0, unchanged: 0, skipped: 0, failed: 0 });
    const second = await importThroughJob({ platform: "web", url, content: "v2" }, { parsePasted: page("Second version") });
    expect(second).toMatchObject({ note_id: first.note_id, counts: { updated: 1 } });
    expect((await alice.get(`/api/notes/${first.note_id}`)).body.content).toStartWith("Second version");

    await alice.put(`/api/notes/${first.note_id}`, { content: "My own words" });
    const third = await importThroughJob({ platform: "web", url, content: "v3" }, { parsePasted: page("Third version") });
    expect(third).toMatchObject({ status: "completed", note_id: first.note_id, counts: { skipped: 1, created: 0 } });
    expect(third.failures).toEqual([{ name: url, error: expect.stringContaining("edited here") }]);
    expect((await alice.get(`/api/notes/${first.note_id}`)).body.content).toBe("My own words");
  });
});
