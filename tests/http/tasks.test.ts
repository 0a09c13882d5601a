import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import type { Client } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import * as schema from "../../src/db/schema";
import { createJobCatalogue, importQueueOn } from "../../src/jobs/catalogue";
import { createQueue } from "../../src/jobs/queue";
import { silentLog } from "../../src/jobs/log";
import { createImporters } from "../../src/modules/imports/platforms";
import { reconcileImportTasks } from "../../src/modules/imports/reconcile-tasks";
import { runImportTask } from "../../src/modules/imports/run-import";
import { createSafeFetcher } from "../../src/modules/imports/safe-fetch";
import { Api, expectError } from "../support/api";
import { startTestServer, type TestServer } from "../support/server";
import { unheardChanges } from "../support/changes";

const fixture = (name: string) => fs.readFileSync(path.resolve(import.meta.dir, "../fixtures/platforms", name), "utf8");

let server: TestServer;
let guarded: TestServer;
let api: Api;
let alice: Api;
let db: Client;
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
  server = await startTestServer({ IMPORT_ALLOW_PRIVATE_NETWORKS: "true" });
  guarded = await startTestServer();
  api = new Api(server.url);
  alice = (await api.newUser("importer")).api;
  db = server.openNotesClient();
});
afterAll(async () => {
  db.close();
  site.stop(true);
  await server.stop();
  await guarded.stop();
});

const siteUrl = (pathname: string) => `http://127.0.0.1:${site.port}${pathname}`;

/** Polls a task until it leaves pending/running, recording every state seen on the way. */
async function settle(client: Api, id: number, timeoutMs = 20_000) {
  const seen: { status: string; progress: number; message: string }[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await client.get(`/api/tasks/${id}`);
    const last = seen[seen.length - 1];
    if (!last || last.status !== body.status || last.progress !== body.progress) seen.push({ status: body.status, progress: body.progress, message: body.message });
    if (body.status === "completed" || body.status === "failed") return { task: body, seen };
    if (Date.now() > deadline) throw new Error(`task ${id} still ${body.status} after ${timeoutMs} ms`);
    await Bun.sleep(25);
  }
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
  });

  test("the saved HTML of a WeChat article goes through the WeChat parser", async () => {
    const created = await alice.post("/api/tasks", { platform: "wechat", content: fixture("wechat/article.html") });
    const { task } = await settle(alice, created.body.id);
    expect(task.status).toBe("completed");
    const note = (await alice.get(`/api/notes/${task.note_id}`)).body;
    expect(note.title).toBe("从零实现一个 Redis 分布式锁：原理、坑与最佳实践");
    expect(note.content).toContain("mmbiz.qpic.cn");
    expect(note.content).not.toContain("data-src");
  });

  test("a pasted deleted page fails clearly and makes no note", async () => {
    const before = (await alice.get("/api/notes")).body.total;
    const created = await alice.post("/api/tasks", { platform: "wechat", content: fixture("wechat/deleted.html") });
    const { task } = await settle(alice, created.body.id);
    expect(task.status).toBe("failed");
    expect(task.note_id).toBeNull();
    expect(task.error).toMatch(/deleted/i);
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
    await runImportTask(run, { taskId: id, userId: me.id + 999 });
    const row = await db.execute({ sql: "select status, note_id from import_tasks where id = ?", args: [id] });
    expect(row.rows[0]!.note_id).toBeNull();
  });
});
