import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { drizzle } from "drizzle-orm/libsql";
import { strFromU8 } from "fflate";
import pg from "pg";
import * as schema from "../../src/db/schema";
import { createJobCatalogue, importQueueOn } from "../../src/jobs/catalogue";
import { silentLog } from "../../src/jobs/log";
import { createQueue } from "../../src/jobs/queue";
import { importJobKey } from "../../src/modules/imports/import-queue";
import { reconcileImportTasks } from "../../src/modules/imports/reconcile-tasks";
import { runImportTask } from "../../src/modules/imports/run-import";
import { markdownNote } from "../../src/modules/archives/markdown-note";
import { planNoteWrite } from "../../src/modules/archives/reimport";
import type { BatchItem } from "drizzle-orm/batch";
import type { ChangePublisher } from "../../src/modules/events/change";
import { Api } from "../support/api";
import { importArchive, uploadArchive as upload } from "../support/archive-import";
import { settleTask as settle } from "../support/settle-task";
import { allNotes, exportZip } from "../support/read-back";
import { backdateNote } from "../support/backdate-note";
import { serverForThisFile, startTestServer, type TestServer } from "../support/server";
import { unheardChanges } from "../support/changes";
import { buildZip, type ZipEntrySpec } from "../support/zip-builder";

const { server, api } = await serverForThisFile();

const archivedFiles = () => (fs.existsSync(path.join(server.dataDir, "archives")) ? fs.readdirSync(path.join(server.dataDir, "archives")) : []);
const noTime = ({ id: _id, updated_at: _u, ...rest }: Record<string, unknown>) => rest;

describe("our own export", () => {
  test("round-trips losslessly, hostile titles and tags included, and importing it again changes nothing", async () => {
    const owner = (await api.newUser("exporter")).api;
    const hostile = [
      { title: "---", content: "---\ntitle: not front matter\n---\nbody", tags: ["null", "true", "- dash"] },
      { title: "null", content: "\n\nstarts with blank lines\r\nand CRLF  ", tags: ["123", "2024-01-01", "#hash"] },
      { title: "key: value # not a comment", content: "", tags: ["a,b", "'quoted'", '"double"'] },
      { title: "  yes  ", content: "# A heading\n\n#inline tags here are not added", tags: [] },
      { title: "中文标题 🦀 \u202e reversed", content: "正文 [[Wiki link]] ![[embed.png]]", tags: ["标签", "area/topic", "x".repeat(64)] },
      { title: "2026-11-21T13:45:00Z", content: "...", tags: ["~", "[list]", "{map}"] },
    ];
    for (const note of hostile) expect((await owner.post("/api/notes", note)).status).toBe(201);
    // One imported note, so `source` travels too.
    const client = server.openNotesClient();
    const [first] = await allNotes(owner);
    await client.execute({
      sql: "update notes set source_platform = 'wechat', source_url = 'https://mp.weixin.qq.com/s?__biz=x&mid=1&idx=1', source_author = 'null', source_published_at = 1700000000000 where id = ?",
      args: [first.id],
    });
    client.close();
    const originals = await allNotes(owner);
    const { response, bytes: zip } = await exportZip(owner, {});
    expect(response.status).toBe(200);

    const other = (await api.newUser("reader")).api;
    const task = await importArchive(other, zip);
    expect(task).toMatchObject({ status: "completed", progress: 100, error: null, note_id: null });
    expect(task.counts).toEqual({ created: hostile.length, updated: 0, unchanged: 0, skipped: 0, failed: 0 });
    const copies = await allNotes(other);
    expect(copies.map(noTime)).toEqual(
      originals.map((note) => noTime({ ...note, source: note.source ?? { platform: "archive", url: null, author: null, published_at: null } })),
    );

    // Again, by the owner and by the reader: every note is found and left as it is.
    const again = await importArchive(owner, zip);
    expect(again.counts).toEqual({ created: 0, updated: 0, unchanged: hostile.length, skipped: 0, failed: 0 });
    expect(await allNotes(owner)).toEqual(originals);
    const readerAgain = await importArchive(other, zip, "rhizome");
    expect(readerAgain.counts).toEqual({ created: 0, updated: 0, unchanged: hostile.length, skipped: 0, failed: 0 });
    expect(await allNotes(other)).toEqual(copies);
    expect(archivedFiles()).toEqual([]);
  });

  test("the owner's re-import updates a note not edited since the export and skips one edited since", async () => {
    const owner = (await api.newUser("owner")).api;
    const a = (await owner.post("/api/notes", { title: "A", content: "old a", tags: ["t"] })).body;
    const b = (await owner.post("/api/notes", { title: "B", content: "old b" })).body;
    for (const { id } of [a, b]) await backdateNote(server, id);
    const { response, files: zip } = await exportZip(owner, {});
    expect(response.status).toBe(200);
    await owner.put(`/api/notes/${b.id}`, { content: "edited here" });
    // The export as someone edited it elsewhere: both files changed.
    const edited = Object.entries(zip).map(([name, bytes]) => ({ name, data: strFromU8(bytes).replace(/old (a|b)$/, "new $1") }));
    const task = await importArchive(owner, buildZip(edited));
    expect(task.counts).toEqual({ created: 0, updated: 1, unchanged: 0, skipped: 1, failed: 0 });
    expect(task.failures).toEqual([{ name: expect.stringContaining(`-${b.id}.md`), error: expect.stringContaining("edited here") }]);
    expect((await owner.get(`/api/notes/${a.id}`)).body).toMatchObject({ content: "new a", tags: ["t"], created_at: a.created_at });
    expect((await owner.get(`/api/notes/${b.id}`)).body.content).toBe("edited here");
  });
});

const GBK_NAME = new Uint8Array([0xd6, 0xd0, 0xce, 0xc4, 0xb1, 0xca, 0xbc, 0xc7, 0x2e, 0x6d, 0x64]); // "中文笔记.md" in GBK

function vault(changes: Record<string, string> = {}): ZipEntrySpec[] {
  const files: Record<string, string> = {
    "Projects/Alpha.md": [
      "---",
      "title: Alpha project",
      "tags: [work, 'area/planning']",
      "aliases: [Alpha, A]",
      "created: 2024-01-05",
      "---",
      "",
      "Plans for #alpha and #area/research, see [[Beta]] and ![[diagram.png]].",
      "Issue #123 is not a tag; neither is `#code` or this:",
      "```",
      "#not-a-tag",
      "```",
      "Ends with #final.",
    ].join("\n"),
    "Projects/Nested/Beta.md": "---\ntags:\n  - one\n  - two\ncreated_at: 2024-02-01T08:30:00Z\n---\n# Beta heading\n\nBody of beta.",
    "Inbox/Tagged.md": "---\ntags: \"x, y z\"\ndate: 2023-12-31\n---\nNo heading here #idea",
    "Plain note.md": "Just text.",
    "empty.md": "",
    "attachments/diagram.png": "\u0089PNG not really",
    ".obsidian/workspace.json": "{}",
    "__MACOSX/Projects/._Alpha.md": "resource fork",
    ...changes,
  };
  return [
    { name: "Projects/", data: "" },
    ...Object.entries(files).map(([name, data]) => ({ name, data, deflate: true })),
    { name: GBK_NAME, data: "# 中文笔记\n\n内容 #中文标签" },
  ];
}

describe("a Markdown vault", () => {
  test("becomes notes by Obsidian's conventions; attachments and hidden files are skipped and counted", async () => {
    const user = (await api.newUser("vault")).api;
    const task = await importArchive(user, buildZip(vault()));
    expect(task.status).toBe("completed");
    expect(task.counts).toEqual({ created: 6, updated: 0, unchanged: 0, skipped: 3, failed: 0 });
    const notes = await allNotes(user);
    const byTitle = Object.fromEntries(notes.map((note) => [note.title, note]));
    expect(Object.keys(byTitle).sort()).toEqual(["Alpha project", "Beta heading", "Plain note", "Tagged", "empty", "中文笔记"].sort());
    const alpha = byTitle["Alpha project"];
    expect(alpha.tags).toEqual(["work", "area/planning", "alpha", "area/research", "final"]);
    expect(alpha.created_at).toBe("2024-01-05T00:00:00.000Z");
    expect(alpha.content.startsWith("Plans for #alpha")).toBe(true);
    // diagram.png is not really a picture: the embed stays as written, and the task says why.
    expect(alpha.content).toContain("[[Beta]] and ![[diagram.png]]");
    expect(task.failures).toEqual([{ name: "Projects/Alpha.md: attachments/diagram.png", error: "Picture not stored: not a PNG, JPEG, GIF, WebP or AVIF image" }]);
    expect(alpha.source).toEqual({ platform: "archive", url: null, author: null, published_at: null });
    expect(byTitle["Beta heading"]).toMatchObject({ tags: ["one", "two"], created_at: "2024-02-01T08:30:00.000Z" });
    expect(byTitle["Tagged"]).toMatchObject({ tags: ["x", "y", "z", "idea"], created_at: "2023-12-31T00:00:00.000Z" });
    expect(byTitle["empty"]).toMatchObject({ content: "", tags: [] });
    expect(byTitle["中文笔记"].tags).toEqual(["中文标签"]);
  });

  test("re-importing updates a changed file, leaves a note edited here alone, and duplicates nothing", async () => {
    const user = (await api.newUser("reimport")).api;
    await importArchive(user, buildZip(vault()));
    const before = await allNotes(user);
    const plain = before.find((note) => note.title === "Plain note")!;
    await user.put(`/api/notes/${plain.id}`, { content: "Edited here." });
    const task = await importArchive(
      user,
      buildZip(vault({ "Plain note.md": "Changed there.", "Inbox/Tagged.md": "---\ntags: x\n---\nRewritten #idea" })),
    );
    expect(task.counts).toEqual({ created: 0, updated: 1, unchanged: 4, skipped: 4, failed: 0 });
    expect(task.failures.filter((failure: { error: string }) => !failure.error.startsWith("Picture not stored"))).toEqual([{ name: "Plain note.md", error: expect.stringContaining("edited here") }]);
    const after = await allNotes(user);
    expect(after.map((note) => note.id)).toEqual(before.map((note) => note.id));
    expect(after.find((note) => note.id === plain.id)!.content).toBe("Edited here.");
    expect(after.find((note) => note.title === "Tagged")).toMatchObject({ content: "Rewritten #idea", tags: ["x", "idea"] });
  });
});

describe("many new notes written at once", () => {
  test("each note's source record points at that note, with other users' notes and deleted ids in between", async () => {
    const user = (await api.newUser("batched")).api;
    const other = (await api.newUser("batched-other")).api;
    const early = await user.post("/api/notes", { title: "Before", content: "x" });
    await other.post("/api/notes", { title: "Theirs", content: "y" });
    await user.delete(`/api/notes/${early.body.id}`);
    const files = (version: string) => Array.from({ length: 6 }, (_, index) => ({ name: `n${index}.md`, data: `${version} of n${index}` }));
    expect((await importArchive(user, buildZip(files("v1")))).counts).toMatchObject({ created: 6 });
    await other.post("/api/notes", { title: "Theirs again", content: "z" });
    // Each source now changes: the update must land on the note that came from it.
    expect((await importArchive(user, buildZip(files("v2")))).counts).toMatchObject({ created: 0, updated: 6 });
    const notes = await allNotes(user);
    expect(notes.map((note) => [note.title, note.content])).toEqual(Array.from({ length: 6 }, (_, index) => [`n${index}`, `v2 of n${index}`]));
  });
});

describe("an edit made here while a re-import is being planned", () => {
  test("wins: the planned update does not overwrite it, and the next import skips the note", async () => {
    const { api: user, id: userId } = await api.newUser("race");
    await importArchive(user, buildZip([{ name: "Race.md", data: "First." }]));
    const [note] = await allNotes(user);
    await backdateNote(server, note.id);
    const libsql = server.openNotesClient();
    const db = drizzle(libsql, { schema });
    const plan = await planNoteWrite(db, userId, markdownNote("Race.md", "Changed there."));
    expect(plan.outcome).toBe("updated");
    await user.put(`/api/notes/${note.id}`, { content: "Edited here." });
    await db.batch(plan.statements as [BatchItem<"sqlite">]);
    libsql.close();
    expect((await user.get(`/api/notes/${note.id}`)).body.content).toBe("Edited here.");
    const again = await importArchive(user, buildZip([{ name: "Race.md", data: "Changed there." }]));
    expect(again.counts).toMatchObject({ skipped: 1, updated: 0 });
  });
});

describe("hostile archives", () => {
  test("names that climb out or are absolute are refused per entry; the rest imports", async () => {
    const user = (await api.newUser("traversal")).api;
    const task = await importArchive(
      user,
      buildZip([
        { name: "../evil.md", data: "x" },
        { name: "/etc/evil.md", data: "x" },
        { name: "notes/..\\..\\evil.md", data: "x" },
        { name: "fine.md", data: "fine" },
      ]),
    );
    expect(task.status).toBe("completed");
    expect(task.counts).toEqual({ created: 1, updated: 0, unchanged: 0, skipped: 0, failed: 3 });
    expect(task.failures.map((failure: { name: string }) => failure.name)).toEqual(["../evil.md", "/etc/evil.md", "notes/..\\..\\evil.md"]);
  });

  test("a zip bomb, too many entries, a lying size, a truncated or non-ZIP body each fail the task clearly", async () => {
    const user = (await api.newUser("hostile")).api;
    const bomb = buildZip([{ name: "bomb.md", data: new Uint8Array(8 * 1024 * 1024), deflate: true }]);
    const many = buildZip(Array.from({ length: 50_001 }, (_, index) => ({ name: `n${index}.md` })));
    const liar = buildZip([{ name: "liar.md", data: "a".repeat(5000), declaredSize: 10 }]);
    const good = buildZip(vault());
    const cases: [Uint8Array | string, RegExp][] = [
      [bomb, /expands more than 100 times/],
      [many, /50001 entries; at most 50000/],
      [liar, /damaged/],
      [good.slice(0, good.length - 30), /not a readable ZIP/],
      ["this is not a zip", /not a readable ZIP/],
    ];
    for (const [body, error] of cases) {
      const created = await upload(user, body);
      expect(created.status).toBe(201);
      const task = await settle(user, created.body.id);
      expect(task.status).toBe("failed");
      expect(task.error).toMatch(error);
    }
    expect((await user.get("/api/notes")).body.total).toBe(0);
    expect((await api.get("/healthz")).status).toBe(200);
    expect(archivedFiles()).toEqual([]);
  });

  test("an upload over 256 MiB is a 413 with the error body; the route takes bodies past the procedures' limits, other routes do not", async () => {
    const user = (await api.newUser("limits")).api;
    const port = new URL(server.url).port;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), "127.0.0.1", () => {
        socket.write(
          `POST /api/tasks/archive HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${user.token}\r\nContent-Type: application/zip\r\nContent-Length: ${256 * 1024 * 1024 + 1}\r\n\r\nPK`,
        );
      });
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk;
        if (text.includes("}")) (socket.destroy(), resolve(text));
      });
      socket.on("error", reject);
    });
    expect(answer).toStartWith("HTTP/1.1 413");
    expect(answer).toContain('"code":"PAYLOAD_TOO_LARGE"');
    expect(answer).toContain("256 MiB");

    // 20 MiB: past every procedure's limit (and the server's former cap), fine for an archive.
    const big = buildZip([{ name: "big.bin", data: crypto.getRandomValues(new Uint8Array(65536)).map((_, i) => i) }, { name: "pad.bin", data: new Uint8Array(20 * 1024 * 1024).fill(7) }]);
    const created = await upload(user, big);
    expect(created.status).toBe(201);
    expect((await settle(user, created.body.id)).counts).toMatchObject({ skipped: 2 });
    const tooBig = await user.request("POST", "/api/notes", { body: "x".repeat(20 * 1024 * 1024), headers: { "content-type": "application/json" } });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toEqual({ code: "PAYLOAD_TOO_LARGE", message: expect.stringContaining("2 MiB") });
  });

  test("wrong content type, format or method, and no token, are refused with the error body", async () => {
    const user = (await api.newUser("refusals")).api;
    expect((await user.request("POST", "/api/tasks/archive", { body: "x", headers: { "content-type": "text/plain" } })).status).toBe(415);
    const format = await upload(user, buildZip(vault()), "evernote");
    expect(format.status).toBe(400);
    expect(format.body.issues[0].path).toEqual(["format"]);
    expect((await user.get("/api/tasks/archive")).status).toBe(405);
    expect((await upload(api, buildZip(vault()))).status).toBe(401);
    expect((await user.get("/api/tasks")).body.total).toBe(0);
  });
});

describe("isolation", () => {
  test("another user's archive task is a 404, and their notes are never matched", async () => {
    const alice = (await api.newUser("alice")).api;
    const bob = (await api.newUser("bob")).api;
    const task = await importArchive(alice, buildZip(vault()));
    expect((await bob.get(`/api/tasks/${task.id}`)).status).toBe(404);
    const bobs = await importArchive(bob, buildZip(vault()));
    expect(bobs.counts).toMatchObject({ created: 6, unchanged: 0 });
    expect((await alice.get("/api/notes")).body.total).toBe(6);
  });
});

describe("with the worker out of the way (ROLE=api)", () => {
  let apiOnly: TestServer;
  beforeAll(async () => {
    apiOnly = await startTestServer({ ROLE: "api" });
  });
  afterAll(() => apiOnly.stop());

  test("a worker killed mid-archive resumes after the last saved slice without doubling notes", async () => {
    {
      const client = new Api(apiOnly.url);
      const user = await client.newUser("resume");
      const entries = Array.from({ length: 650 }, (_, index) => ({ name: `notes/n${index}.md`, data: `# Note ${index}\n\nbody ${index} #bulk`, deflate: true }));
      const created = await upload(user.api, buildZip(entries));
      expect(created.status).toBe(201);
      const libsql = apiOnly.openNotesClient();
      const db = drizzle(libsql, { schema });
      const controller = new AbortController();
      // The worker "dies" once the first slice is saved: its signal aborts, as when a worker stops.
      const stopAfterFirstSlice: ChangePublisher = {
        publish: async () => {
          const row = await libsql.execute({ sql: "select cursor from import_tasks where id = ?", args: [created.body.id] });
          if (Number(row.rows[0]!.cursor) > 0) controller.abort(new Error("worker stopped"));
        },
      };
      const archivesDir = path.join(apiOnly.dataDir, "archives");
      const run = (signal: AbortSignal, changes: ChangePublisher, attempt: number) =>
        runImportTask({ db, fetcher: null as never, importers: null as never, archivesDir, signal, attempt, maxAttempts: 4, changes }, { taskId: created.body.id, userId: user.id });
      await expect(run(controller.signal, stopAfterFirstSlice, 1)).rejects.toThrow("worker stopped");
      const halfway = (await user.api.get(`/api/tasks/${created.body.id}`)).body;
      expect(halfway.status).toBe("running");
      expect(halfway.counts.created).toBeGreaterThan(0);
      expect(halfway.counts.created).toBeLessThan(650);
      expect(halfway.progress).toBeGreaterThan(0);
      await run(new AbortController().signal, unheardChanges, 2);
      const done = (await user.api.get(`/api/tasks/${created.body.id}`)).body;
      expect(done).toMatchObject({ status: "completed", counts: { created: 650, updated: 0, unchanged: 0, skipped: 0, failed: 0 } });
      expect((await user.api.get("/api/notes")).body.total).toBe(650);
      expect(fs.readdirSync(archivesDir)).toEqual([]);
      libsql.close();
    }
  });

  test("a task the reconciler gives up on has its uploaded file deleted", async () => {
    const client = new Api(apiOnly.url);
    const user = await client.newUser("gaveup");
    const created = await upload(user.api, buildZip([{ name: "a.md", data: "# A" }]));
    const archivesDir = path.join(apiOnly.dataDir, "archives");
    expect(fs.readdirSync(archivesDir)).toHaveLength(1);
    const libsql = apiOnly.openNotesClient();
    const db = drizzle(libsql, { schema });
    // Requeued three times already, and its job is gone from the queue again (no worker ran it: ROLE=api).
    await libsql.execute({ sql: "update import_tasks set requeues = 3, updated_at = 0 where id = ?", args: [created.body.id] });
    const queue = createQueue({
      connectionString: apiOnly.databaseUrl,
      tasks: createJobCatalogue({ db, imports: { allowPrivateNetworks: false }, graph: { extractor: "local", llmConcurrency: 1, anthropic: {} }, changes: unheardChanges }),
      log: silentLog,
    });
    const queueDb = new pg.Client({ connectionString: apiOnly.databaseUrl });
    await queueDb.connect();
    try {
      expect(await queue.jobExists(importJobKey(created.body.id))).toBe(true);
      await queueDb.query("select graphile_worker.remove_job($1)", [importJobKey(created.body.id)]);
      const result = await reconcileImportTasks(db, importQueueOn(queue), unheardChanges, { archivesDir });
      expect(result.failed).toBe(1);
    } finally {
      await queueDb.end();
      await queue.close();
      libsql.close();
    }
    expect((await user.api.get(`/api/tasks/${created.body.id}`)).body.status).toBe("failed");
    expect(fs.readdirSync(archivesDir)).toEqual([]);
  });
});
