import { afterAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { unzipSync } from "fflate";
import { createAccessToken } from "../support/access-tokens";
import { importArchive } from "../support/archive-import";
import { Api, expectError } from "../support/api";
import { imageBytes } from "../support/images";
import { readFixture } from "../support/platform-fixtures";
import { serverForThisFile } from "../support/server";
import { buildZip } from "../support/zip-builder";
import { backdateNote } from "../support/backdate-note";
import { openNotesDatabase } from "../../src/db/client";
import { purgeExpiredTrash } from "../../src/modules/history/trash";
import { releaseUnshownFiles } from "../../src/modules/history/version-files";
import { blobPath } from "../../src/modules/files/blob-store";
import { settleTask } from "../support/settle-task";

/** What the loopback stand-in for a blog serves at /post, changed by a test to make its source change. */
let article = readFixture("web", "blog-article.html");
const site = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (request) =>
    new URL(request.url).pathname === "/post" ? new Response(article, { headers: { "content-type": "text/html; charset=utf-8" } }) : new Response("Not Found", { status: 404 }),
});
afterAll(() => site.stop(true));
const { server, api, db } = await serverForThisFile({ NOTE_VERSIONS_MAX: "5", TRASH_DAYS: "30", IMPORT_ALLOW_PRIVATE_NETWORKS: "true" });

/** Moves a note's last write back past the 60 s coalescing window, as if time had gone by. */
const aMinuteLater = (noteId: number) => backdateNote(server, noteId);

async function versions(client: Api, id: number) {
  const response = await client.get(`/api/notes/${id}/versions`);
  expect(response.status).toBe(200);
  return response.body.items as { version: number; title: string; tags: string[]; size: number; by: { kind: string; name: string | null } }[];
}

describe("versions", () => {
  test("each edit keeps the text it replaced, with its author, and every version reads back exactly", async () => {
    const { api: user } = await api.newUser("hist");
    const texts = ["first draft 🌱", "second: 锚定效应\nwith two lines", "third — *Markdown*\n\n- a list\n", "fourth"];
    const note = (await user.post("/api/notes", { title: "T0", content: texts[0], tags: ["a"] })).body;
    for (let n = 1; n < texts.length; n++) {
      await aMinuteLater(note.id);
      expect((await user.put(`/api/notes/${note.id}`, { title: `T${n}`, content: texts[n], tags: [`t${n}`] })).status).toBe(200);
    }
    const listed = await versions(user, note.id);
    expect(listed.map((version) => version.version)).toEqual([3, 2, 1]);
    expect(listed.map((version) => version.title)).toEqual(["T2", "T1", "T0"]);
    expect(listed[2]!.tags).toEqual(["a"]);
    expect(listed[1]!.size).toBe(Buffer.byteLength(texts[1]!));
    for (const version of listed) expect(version.by).toEqual({ kind: "session", name: null });
    for (let n = 1; n <= 3; n++) {
      const detail = await user.get(`/api/notes/${note.id}/versions/${n}`);
      expect(detail.body).toMatchObject({ version: n, title: `T${n - 1}`, content: texts[n - 1] });
    }
    const diff = await user.get(`/api/notes/${note.id}/versions/3/diff`);
    expect(diff.body).toEqual({ from: 3, to: "current", hunks: [{ old_start: 1, old_lines: 4, new_start: 1, new_lines: 1, lines: ["-third — *Markdown*", "-", "-- a list", "-", "+fourth"] }] });
  });

  test("quick successive edits by one client are one version; another client's edit between starts a new one", async () => {
    const { api: user } = await api.newUser("histco");
    const note = (await user.post("/api/notes", { title: "Autosave", content: "v0" })).body;
    await aMinuteLater(note.id);
    for (const content of ["v1", "v2", "v3", "v4"]) await user.put(`/api/notes/${note.id}`, { content });
    let listed = await versions(user, note.id);
    expect(listed).toHaveLength(1);
    expect((await user.get(`/api/notes/${note.id}/versions/1`)).body.content).toBe("v0");

    const script = api.withToken(await createAccessToken(user, ["notes:read", "notes:write"], { name: "my script" }));
    await script.put(`/api/notes/${note.id}`, { content: "by the script" });
    await user.put(`/api/notes/${note.id}`, { content: "v5" });
    listed = await versions(user, note.id);
    expect(listed.map((version) => [version.version, version.by])).toEqual([
      [3, { kind: "token", name: "my script" }],
      [2, { kind: "session", name: null }],
      [1, { kind: "session", name: null }],
    ]);
    expect((await user.get(`/api/notes/${note.id}/versions/2`)).body.content).toBe("v4");
    // A minute on, the same client's next edit is a version of its own.
    await aMinuteLater(note.id);
    await user.put(`/api/notes/${note.id}`, { content: "v6" });
    expect((await versions(user, note.id))[0]).toMatchObject({ version: 4, by: { kind: "session" } });
    expect((await user.get(`/api/notes/${note.id}/versions/4`)).body.content).toBe("v5");
  });

  test("rewriting the same text, or only touching nothing, keeps no version", async () => {
    const { api: user } = await api.newUser("histsame");
    const note = (await user.post("/api/notes", { title: "Same", content: "x", tags: ["k"] })).body;
    await user.put(`/api/notes/${note.id}`, { title: "Same", content: "x", tags: ["k"] });
    expect(await versions(user, note.id)).toEqual([]);
  });

  test("restore makes a version current and keeps what it replaced; restoring that undoes it", async () => {
    const { api: user } = await api.newUser("histrest");
    const note = (await user.post("/api/notes", { title: "Plan", content: "original", tags: ["x"] })).body;
    await aMinuteLater(note.id);
    await user.put(`/api/notes/${note.id}`, { title: "Plan B", content: "rewritten by mistake", tags: [] });
    const restored = await user.post(`/api/notes/${note.id}/versions/1/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ id: note.id, title: "Plan", content: "original", tags: ["x"] });
    const listed = await versions(user, note.id);
    expect(listed[0]).toMatchObject({ version: 2, title: "Plan B", by: { kind: "session" } });
    const undone = await user.post(`/api/notes/${note.id}/versions/2/restore`);
    expect(undone.body).toMatchObject({ title: "Plan B", content: "rewritten by mistake", tags: [] });
    expect((await versions(user, note.id))[0]).toMatchObject({ version: 3, title: "Plan", by: { kind: "restore", name: null } });
    // The restored text is searchable as the note's own.
    expect((await user.get("/api/notes?q=mistake")).body.items.map((item: { id: number }) => item.id)).toEqual([note.id]);
  });

  test("at most NOTE_VERSIONS_MAX versions a note: the oldest go, the rest still read back", async () => {
    const { api: user } = await api.newUser("histmax");
    const note = (await user.post("/api/notes", { title: "Many", content: "c0" })).body;
    for (let n = 1; n <= 8; n++) {
      await aMinuteLater(note.id);
      await user.put(`/api/notes/${note.id}`, { content: `c${n}` });
    }
    const listed = await versions(user, note.id);
    expect(listed.map((version) => version.version)).toEqual([8, 7, 6, 5, 4]);
    expect((await user.get(`/api/notes/${note.id}/versions/4`)).body.content).toBe("c3");
    expectError(await user.get(`/api/notes/${note.id}/versions/3`), 404, "NOT_FOUND");
  });

  test("another user's versions are a 404 everywhere, and bad input a 400", async () => {
    const { api: alice } = await api.newUser("histalice");
    const { api: bob } = await api.newUser("histbob");
    const note = (await alice.post("/api/notes", { title: "Mine", content: "secret v1" })).body;
    await alice.put(`/api/notes/${note.id}`, { content: "secret v2" });
    for (const response of [
      await bob.get(`/api/notes/${note.id}/versions`),
      await bob.get(`/api/notes/${note.id}/versions/1`),
      await bob.get(`/api/notes/${note.id}/versions/1/diff`),
      await bob.post(`/api/notes/${note.id}/versions/1/restore`),
    ]) {
      expectError(response, 404, "NOT_FOUND");
      expect(response.text).not.toContain("secret");
    }
    expect((await alice.get(`/api/notes/${note.id}`)).body.content).toBe("secret v2");
    expectError(await alice.get(`/api/notes/${note.id}/versions/0`), 400, "BAD_REQUEST");
    expectError(await alice.get(`/api/notes/${note.id}/versions/abc/diff`), 400, "BAD_REQUEST");
    expectError(await alice.get(`/api/notes/${note.id}/versions?size=101`), 400, "BAD_REQUEST");
    expectError(await alice.get(`/api/notes/${note.id}/versions/99`), 404, "NOT_FOUND");
    const reader = api.withToken(await createAccessToken(alice, ["notes:read"]));
    expect((await reader.get(`/api/notes/${note.id}/versions`)).status).toBe(200);
    expectError(await reader.post(`/api/notes/${note.id}/versions/1/restore`), 403, "FORBIDDEN");
  });

  test("a re-import keeps the text it replaces, put down to the import", async () => {
    const { api: user } = await api.newUser("histimport");
    const first = buildZip([{ name: "Ideas.md", data: "# Ideas\n\nThe first idea." }]);
    expect((await importArchive(user, first)).counts).toMatchObject({ created: 1 });
    const id = (await user.get("/api/notes")).body.items[0].id;
    const second = buildZip([{ name: "Ideas.md", data: "# Ideas\n\nThe first idea, improved." }]);
    expect((await importArchive(user, second)).counts).toMatchObject({ updated: 1 });
    const listed = await versions(user, id);
    expect(listed).toEqual([expect.objectContaining({ version: 1, by: { kind: "import", name: "archive" } })]);
    expect((await user.get(`/api/notes/${id}/versions/1`)).body.content).toContain("The first idea.");
  });
});

describe("the trash", () => {
  test("delete → trash → restore gives back the same note, id, tags, source, history and files", async () => {
    const { api: user } = await api.newUser("trash");
    const file = await user.request("POST", "/api/files", { body: imageBytes("png") as BodyInit, headers: { "content-type": "image/png" } });
    expect(file.status).toBe(201);
    const note = (await user.post("/api/notes", { title: "Keep me", content: `A picture: ![x](/api/files/${file.body.id})\n\nunicorn words`, tags: ["t1", "t2"] })).body;
    await aMinuteLater(note.id);
    await user.put(`/api/notes/${note.id}`, { title: "Keep me!" });
    const before = (await user.get(`/api/notes/${note.id}`)).body;

    expect((await user.delete(`/api/notes/${note.id}`)).status).toBe(204);
    expectError(await user.get(`/api/notes/${note.id}`), 404, "NOT_FOUND");
    expect((await user.get("/api/notes")).body.total).toBe(0);
    expect((await user.get("/api/notes?q=unicorn")).body.total).toBe(0);
    expect((await user.get("/api/notes?tag=t1")).body.total).toBe(0);
    const exported = await fetch(`${server.url}/api/notes/export`, { method: "POST", headers: { authorization: `Bearer ${user.token}` } });
    expect(Object.keys(unzipSync(new Uint8Array(await exported.arrayBuffer())))).toEqual([]);
    expect((await user.get(`/api/files/${file.body.id}`)).status).toBe(200);

    const trash = (await user.get("/api/trash")).body;
    expect(trash.total).toBe(1);
    expect(trash.items[0]).toMatchObject({ id: note.id, title: "Keep me!", tags: ["t1", "t2"] });
    expect(Date.parse(trash.items[0].purge_at) - Date.parse(trash.items[0].deleted_at)).toBe(30 * 24 * 3600 * 1000);

    const restored = await user.post(`/api/trash/${note.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual(before);
    expect((await user.get(`/api/notes/${note.id}`)).body).toEqual(before);
    expect((await user.get("/api/notes?tag=t2")).body.total).toBe(1);
    expect((await user.get("/api/notes?q=unicorn")).body.items.map((item: { id: number }) => item.id)).toEqual([note.id]);
    expect(await versions(user, note.id)).toHaveLength(1);
    expect((await user.get("/api/trash")).body.total).toBe(0);
    expectError(await user.post(`/api/trash/${note.id}/restore`), 404, "NOT_FOUND");
  });

  test("purging removes the note, its history and the files no other note shows", async () => {
    const { api: user } = await api.newUser("purge");
    const upload = (seed: number) => user.request("POST", "/api/files", { body: imageBytes("png", 256, seed) as BodyInit, headers: { "content-type": "image/png" } });
    const [only, shared] = [(await upload(11)).body.id, (await upload(12)).body.id];
    const doomed = (await user.post("/api/notes", { title: "Doomed", content: `![a](/api/files/${only}) ![b](/api/files/${shared})` })).body;
    await user.post("/api/notes", { title: "Other", content: `![b](/api/files/${shared})` });
    await user.put(`/api/notes/${doomed.id}`, { title: "Doomed!" });
    await user.delete(`/api/notes/${doomed.id}`);
    expect((await user.delete(`/api/trash/${doomed.id}`)).status).toBe(204);
    expect((await user.get("/api/trash")).body.total).toBe(0);
    expect((await db.execute({ sql: "select count(*) from note_versions where note_id = ?", args: [doomed.id] })).rows[0]![0]).toBe(0);
    expectError(await user.get(`/api/files/${only}`), 404, "NOT_FOUND");
    expect((await user.get(`/api/files/${shared}`)).status).toBe(200);
    expectError(await user.delete(`/api/trash/${doomed.id}`), 404, "NOT_FOUND");
  });

  test("DELETE /api/trash empties the caller's trash, batch after batch, as purging each note would; notes kept and others' trash stay", async () => {
    const { api: user } = await api.newUser("emptytrash");
    const { api: other } = await api.newUser("emptytrashother");
    const upload = (seed: number) => user.request("POST", "/api/files", { body: imageBytes("png", 256, seed) as BodyInit, headers: { "content-type": "image/png" } });
    const [only, shared] = [(await upload(21)).body.id, (await upload(22)).body.id];
    const kept = (await user.post("/api/notes", { title: "Kept", content: `![b](/api/files/${shared})` })).body;
    const pictured = (await user.post("/api/notes", { title: "Pictured", content: `![a](/api/files/${only}) ![b](/api/files/${shared})` })).body;
    await user.put(`/api/notes/${pictured.id}`, { title: "Pictured, edited" });
    expect((await user.post(`/api/notes/${pictured.id}/shares`, {})).status).toBe(201);
    const trashed = [pictured.id];
    // More than one batch of the purge.
    for (let index = 0; index < 60; index++) trashed.push((await user.post("/api/notes", { title: `Doomed ${index}`, content: "x" })).body.id);
    for (const id of trashed) expect((await user.delete(`/api/notes/${id}`)).status).toBe(204);
    const otherNote = (await other.post("/api/notes", { title: "Other's deleted note", content: "y" })).body;
    await other.delete(`/api/notes/${otherNote.id}`);
    expect((await user.get("/api/trash")).body.total).toBe(61);

    const readOnly = user.withToken(await createAccessToken(user, ["notes:read"]));
    expectError(await readOnly.delete("/api/trash"), 403, "FORBIDDEN");
    expect((await user.get("/api/trash")).body.total).toBe(61);
    const writer = user.withToken(await createAccessToken(user, ["notes:write"]));
    const emptied = await writer.delete("/api/trash");
    expect(emptied.status).toBe(204);
    expect(emptied.text).toBe("");

    expect((await user.get("/api/trash")).body.total).toBe(0);
    const rows = async (query: string) => Number((await db.execute({ sql: query, args: [JSON.stringify(trashed)] })).rows[0]![0]);
    expect(await rows("select count(*) from note_versions where note_id in (select value from json_each(?))")).toBe(0);
    expect(await rows("select count(*) from share_links where note_id in (select value from json_each(?))")).toBe(0);
    expectError(await user.get(`/api/files/${only}`), 404, "NOT_FOUND");
    expect((await user.get(`/api/files/${shared}`)).status).toBe(200);
    expect((await user.get(`/api/notes/${kept.id}`)).status).toBe(200);
    expect((await other.get("/api/trash")).body.total).toBe(1);
    // An empty trash empties again, all the same; the other user's is emptied by its own.
    expect((await user.delete("/api/trash")).status).toBe(204);
    expect((await other.delete("/api/trash")).status).toBe(204);
    expect((await other.get("/api/trash")).body.total).toBe(0);
  });

  test("the scheduled purge empties what has been in the trash TRASH_DAYS, and nothing newer", async () => {
    const { api: user } = await api.newUser("purgejob");
    const old = (await user.post("/api/notes", { title: "Old", content: "o" })).body;
    const recent = (await user.post("/api/notes", { title: "Recent", content: "r" })).body;
    await user.put(`/api/notes/${old.id}`, { content: "o2" });
    await user.delete(`/api/notes/${old.id}`);
    await user.delete(`/api/notes/${recent.id}`);
    // The purge runs at a time the test names (30 days after the old note's deletion), so the server's
    // own hourly purge, which sees nothing that old, can never take the note first.
    const deletedAt = async (id: number) => Number((await db.execute({ sql: "select deleted_at from trashed_notes where id = ?", args: [id] })).rows[0]![0]);
    await db.execute({ sql: "update trashed_notes set deleted_at = ? where id = ?", args: [(await deletedAt(old.id)) + 1, recent.id] });
    const purgeAt = (await deletedAt(old.id)) + 30 * 24 * 3600 * 1000;
    const notesDb = await openNotesDatabase({ url: `file:${server.dbFile}` });
    try {
      expect(await purgeExpiredTrash(notesDb.db, undefined)).toBe(0);
      expect(await purgeExpiredTrash(notesDb.db, undefined, purgeAt - 1)).toBe(0);
      expect(await purgeExpiredTrash(notesDb.db, undefined, purgeAt)).toBe(1);
    } finally {
      notesDb.close();
    }
    expect((await user.get("/api/trash")).body.items.map((item: { id: number }) => item.id)).toEqual([recent.id]);
    expect((await db.execute({ sql: "select count(*) from note_versions where note_id = ?", args: [old.id] })).rows[0]![0]).toBe(0);
  });

  test("a note restored from the trash is its source's note again: re-imported, it is unchanged or updated, never a duplicate", async () => {
    const { api: user } = await api.newUser("trashsource");
    const url = `http://127.0.0.1:${site.port}/post`;
    const importPage = async () => settleTask(user, (await user.post("/api/tasks", { platform: "web", url })).body.id);
    const first = await importPage();
    expect(first).toMatchObject({ status: "completed", counts: { created: 1 } });
    expect((await user.delete(`/api/notes/${first.note_id}`)).status).toBe(204);
    expect((await user.post(`/api/trash/${first.note_id}/restore`)).status).toBe(200);

    expect(await importPage()).toMatchObject({ status: "completed", note_id: first.note_id, counts: { created: 0, updated: 0, unchanged: 1 } });
    article = article.replace("Every few months someone asks me", "Every few weeks someone asks me");
    expect(await importPage()).toMatchObject({ status: "completed", note_id: first.note_id, counts: { created: 0, updated: 1 } });
    expect((await user.get(`/api/notes/${first.note_id}`)).body.content).toContain("Every few weeks");
    expect((await user.get("/api/notes")).body.total).toBe(1);
  });

  test("the trash is each user's own", async () => {
    const { api: alice } = await api.newUser("trashalice");
    const { api: bob } = await api.newUser("trashbob");
    const note = (await alice.post("/api/notes", { title: "Alice's deleted note", content: "x" })).body;
    await alice.delete(`/api/notes/${note.id}`);
    expect((await bob.get("/api/trash")).body.total).toBe(0);
    expectError(await bob.post(`/api/trash/${note.id}/restore`), 404, "NOT_FOUND");
    expectError(await bob.delete(`/api/trash/${note.id}`), 404, "NOT_FOUND");
    expect((await alice.get("/api/trash")).body.total).toBe(1);
  });
});

describe("files that versions show", () => {
  const upload = async (user: Api, seed: number) => {
    const bytes = imageBytes("png", 256, seed);
    const file = await user.request("POST", "/api/files", { body: bytes as BodyInit, headers: { "content-type": "image/png" } });
    expect(file.status).toBe(201);
    return { id: file.body.id as number, sha256: file.body.sha256 as string, bytes };
  };
  /** The picture loads: 200 with its bytes. */
  const expectShown = async (user: Api, file: { id: number; bytes: Uint8Array<ArrayBuffer> }) => {
    const response = await fetch(`${server.url}/api/files/${file.id}`, { headers: { authorization: `Bearer ${user.token}` } });
    expect(response.status).toBe(200);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(file.bytes);
  };
  const expectGone = async (user: Api, file: { id: number; sha256: string }) => {
    expectError(await user.get(`/api/files/${file.id}`), 404, "NOT_FOUND");
    expect(fs.existsSync(blobPath(path.join(server.dataDir, "files"), file.sha256))).toBe(false);
  };
  /** What the hourly job runs after its purge, run now. */
  const releaseHourly = async () => {
    const notesDb = await openNotesDatabase({ url: `file:${server.dbFile}` });
    try {
      return await releaseUnshownFiles({ db: notesDb.db, storage: { dir: path.join(server.dataDir, "files"), maxBytesPerUser: 1024 ** 3 } });
    } finally {
      notesDb.close();
    }
  };
  /** A picture shown by the note's text, then edited out of it: only the version before the edit shows it. */
  const showThenRemove = async (user: Api, file: { id: number }, title = "Pictured") => {
    const note = (await user.post("/api/notes", { title, content: `A picture: ![p](/api/files/${file.id})` })).body;
    await aMinuteLater(note.id);
    expect((await user.put(`/api/notes/${note.id}`, { content: "No picture any more." })).status).toBe(200);
    return note.id as number;
  };

  test("a picture only an older version shows is kept when the last note showing it is purged; restoring the version shows it", async () => {
    const { api: user } = await api.newUser("verfiles");
    const picture = await upload(user, 31);
    const noteId = await showThenRemove(user, picture);
    const other = (await user.post("/api/notes", { title: "Also pictured", content: `![p](/api/files/${picture.id})` })).body;
    expect((await user.delete(`/api/notes/${other.id}`)).status).toBe(204);
    expect((await user.delete(`/api/trash/${other.id}`)).status).toBe(204);
    expect(await releaseHourly()).toBe(0);
    await expectShown(user, picture);

    // Kept too while the note whose version shows it is in the trash, and after it comes back.
    expect((await user.delete(`/api/notes/${noteId}`)).status).toBe(204);
    expect(await releaseHourly()).toBe(0);
    expect((await user.post(`/api/trash/${noteId}/restore`)).status).toBe(200);
    const restored = await user.post(`/api/notes/${noteId}/versions/1/restore`);
    expect(restored.body.content).toBe(`A picture: ![p](/api/files/${picture.id})`);
    await expectShown(user, picture);
  });

  test("a picture goes once the versions that showed it are pruned past NOTE_VERSIONS_MAX; one a kept version shows stays", async () => {
    const { api: user } = await api.newUser("verprune");
    const [pruned, kept] = [await upload(user, 32), await upload(user, 33)];
    const noteId = await showThenRemove(user, pruned);
    for (let n = 1; n <= 3; n++) {
      await aMinuteLater(noteId);
      await user.put(`/api/notes/${noteId}`, { content: n === 2 ? `Now this one: ![k](/api/files/${kept.id})` : `edit ${n}` });
    }
    expect(await releaseHourly()).toBe(0);
    await expectShown(user, pruned);
    // NOTE_VERSIONS_MAX is 5: two more edits and the version showing `pruned` goes; `kept`'s stays.
    for (let n = 4; n <= 5; n++) {
      await aMinuteLater(noteId);
      await user.put(`/api/notes/${noteId}`, { content: `edit ${n}` });
    }
    expect((await versions(user, noteId)).map((version) => version.version)).toEqual([6, 5, 4, 3, 2]);
    await releaseHourly();
    await expectGone(user, pruned);
    await expectShown(user, kept);
  });

  test("purging a note with its versions lets go of the pictures its versions showed, unless another note shows them", async () => {
    const { api: user } = await api.newUser("verpurge");
    const [only, shared] = [await upload(user, 34), await upload(user, 35)];
    const noteId = await showThenRemove(user, only);
    await aMinuteLater(noteId);
    await user.put(`/api/notes/${noteId}`, { content: `![s](/api/files/${shared.id})` });
    await aMinuteLater(noteId);
    await user.put(`/api/notes/${noteId}`, { content: "Nothing shown." });
    const other = (await user.post("/api/notes", { title: "Other", content: "Its first text." })).body;
    await aMinuteLater(other.id);
    await user.put(`/api/notes/${other.id}`, { content: "Its second text." });
    await aMinuteLater(other.id);
    // Another note's version shows `shared`: it stays.
    await user.put(`/api/notes/${other.id}`, { content: `![s](/api/files/${shared.id})` });
    await aMinuteLater(other.id);
    await user.put(`/api/notes/${other.id}`, { content: "Its last text." });
    expect((await user.delete(`/api/notes/${noteId}`)).status).toBe(204);
    expect((await user.delete(`/api/trash/${noteId}`)).status).toBe(204);
    await expectGone(user, only);
    await expectShown(user, shared);
  });

  test("versions written before their files were recorded are read before any file is let go", async () => {
    const { api: user } = await api.newUser("verbacklog");
    const picture = await upload(user, 36);
    const noteId = await showThenRemove(user, picture);
    // As an upgraded database has them: the version's files unrecorded, its note in the backlog.
    await db.execute({ sql: "delete from note_version_files where note_id = ?", args: [noteId] });
    const owner = Number((await db.execute({ sql: "select user_id from notes where id = ?", args: [noteId] })).rows[0]![0]);
    await db.execute({ sql: "insert into version_files_backlog (note_id, user_id) values (?, ?)", args: [noteId, owner] });
    const other = (await user.post("/api/notes", { title: "Also pictured", content: `![p](/api/files/${picture.id})` })).body;
    expect((await user.delete(`/api/notes/${other.id}`)).status).toBe(204);
    expect((await user.delete(`/api/trash/${other.id}`)).status).toBe(204);
    expect(await releaseHourly()).toBe(0);
    await expectShown(user, picture);
    expect((await db.execute({ sql: "select count(*) from version_files_backlog where note_id = ?", args: [noteId] })).rows[0]![0]).toBe(0);
    // Recorded now: purging the note with its version lets the picture go.
    expect((await user.delete(`/api/notes/${noteId}`)).status).toBe(204);
    expect((await user.delete(`/api/trash/${noteId}`)).status).toBe(204);
    await expectGone(user, picture);
  });
});
