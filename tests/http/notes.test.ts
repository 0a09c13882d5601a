import { beforeAll, describe, expect, test } from "bun:test";
import { Api, expectError } from "../support/api";
import { backdateNote } from "../support/backdate-note";
import { serverForThisFile } from "../support/server";

const { server, api } = await serverForThisFile();
const alice = (await api.newUser("alice")).api;
const bob = (await api.newUser("bob")).api;

describe("creating notes", () => {
  test("returns 201 with the note, title trimmed and tags normalised in order", async () => {
    const response = await alice.post("/api/notes", { title: "  Reading list  ", content: "# Books\n\n*Dune*", tags: [" sf ", "books", "sf"] });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(["content", "created_at", "id", "source", "tags", "title", "updated_at"]);
    expect(response.body.source).toBeNull();
    expect(response.body.title).toBe("Reading list");
    expect(response.body.tags).toEqual(["sf", "books"]);
    expect(response.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(response.body.updated_at).toBe(response.body.created_at);
  });

  test("content and tags default to empty", async () => {
    const response = await alice.post("/api/notes", { title: "Just a title" });
    expect(response.status).toBe(201);
    expect(response.body.content).toBe("");
    expect(response.body.tags).toEqual([]);
  });

  test("a note's text goes out as JSON that a browser must not sniff, over REST and tRPC, in answers and errors", async () => {
    const hostile = { title: "<html><script>alert(1)</script>", content: "<html><body onload=alert(1)>" };
    const created = await alice.post("/api/notes", hostile);
    const rpc = await fetch(`${server.url}/trpc/notes.get?input=${encodeURIComponent(JSON.stringify({ id: created.body.id }))}`, { headers: { authorization: `Bearer ${alice.token}` } });
    const missing = await alice.get("/api/notes/<script>");
    for (const response of [created, await alice.get(`/api/notes/${created.body.id}`), missing, await alice.get("/api/<html>")]) {
      expect(response.headers.get("content-type")).toStartWith("application/json");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
    expect(rpc.status).toBe(200);
    expect(rpc.headers.get("content-type")).toStartWith("application/json");
    expect(rpc.headers.get("x-content-type-options")).toBe("nosniff");
  });

  test("keeps hostile strings verbatim and safe", async () => {
    const title = `<script>alert(1)</script> '; DROP TABLE notes; -- 🚀 ‮`;
    const content = "```\n\u0007 bell, escaped \\u0000 and \t tab\n```\n<img src=x onerror=alert(1)>";
    const response = await alice.post("/api/notes", { title, content, tags: ["emoji🚀", "中文"] });
    expect(response.status).toBe(201);
    const read = await alice.get(`/api/notes/${response.body.id}`);
    expect(read.body.title).toBe(title);
    expect(read.body.content).toBe(content);
    expect(read.body.tags).toEqual(["emoji🚀", "中文"]);
  });

  test("titles and tags: tab, LF and CR become spaces, other control characters go, then the value is trimmed", async () => {
    const response = await alice.post("/api/notes", { title: "\tTab\nLF\rCR bell\u0007 del\u007f ", tags: ["a\u0000b", "\tc\n", "c"] });
    expect(response.status).toBe(201);
    expect(response.body.title).toBe("Tab LF CR bell del");
    expect(response.body.tags).toEqual(["ab", "c"]);
    const renamed = await alice.put(`/api/notes/${response.body.id}`, { title: "Two\r\nlines" });
    expect(renamed.body.title).toBe("Two  lines");
  });

  test("lengths count UTF-16 code units", async () => {
    const response = await alice.post("/api/notes", { title: "🚀".repeat(250), tags: ["🚀".repeat(32)] });
    expect(response.status).toBe(201);
    expect(response.body.title).toHaveLength(500);
  });

  test("refuses content with a NUL character instead of truncating it", async () => {
    const response = await alice.post("/api/notes", { title: "nul", content: "before\u0000after" });
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.issues[0]).toEqual({ path: ["content"], message: "Must not contain NUL (\\u0000) characters" });
  });

  test.each([
    [{ title: "" }, "title"],
    [{ title: "   " }, "title"],
    [{ title: "x".repeat(501) }, "title"],
    [{ title: "\u0001\u0007\t\r\n" }, "title"],
    [{ title: `${"🚀".repeat(250)}a` }, "title"],
    [{ title: "t", tags: [`${"🚀".repeat(32)}a`] }, "tags"],
    [{ content: "no title" }, "title"],
    [{ title: "t", tags: ["x".repeat(65)] }, "tags"],
    [{ title: "t", tags: ["  "] }, "tags"],
    [{ title: "t", tags: Array.from({ length: 33 }, (_, i) => `t${i}`) }, "tags"],
    [{ title: "t", tags: "not-an-array" }, "tags"],
    [{ title: 42 }, "title"],
  ])("rejects %j with 400 naming the field", async (body, field) => {
    const response = await alice.post("/api/notes", body);
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.issues.map((issue: { path: string[] }) => issue.path[0])).toContain(field);
  });

  test("accepts exactly 1 MiB of content and refuses one byte more", async () => {
    const mib = 1024 * 1024;
    const ok = await alice.post("/api/notes", { title: "big", content: "a".repeat(mib) });
    expect(ok.status).toBe(201);
    const over = await alice.post("/api/notes", { title: "big", content: "a".repeat(mib + 1) });
    expectError(over, 400, "BAD_REQUEST");
    // Multi-byte characters count in UTF-8 bytes, not in characters.
    const wide = await alice.post("/api/notes", { title: "wide", content: "中".repeat(400_000) });
    expectError(wide, 400, "BAD_REQUEST");
  });

  test("a body over 2 MiB is refused with 413 before it is read", async () => {
    const response = await alice.post("/api/notes", { title: "huge", content: "a".repeat(2 * 1024 * 1024) });
    expectError(response, 413, "PAYLOAD_TOO_LARGE");
  });

  test("needs a valid token", async () => {
    expectError(await api.post("/api/notes", { title: "x" }), 401, "UNAUTHORIZED");
    expectError(await api.withToken("not-a-real-token").post("/api/notes", { title: "x" }), 401, "UNAUTHORIZED");
  });
});

describe("reading, updating and deleting", () => {
  test("a note reads back as created", async () => {
    const created = await alice.post("/api/notes", { title: "Read me", content: "body", tags: ["r"] });
    const read = await alice.get(`/api/notes/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  test("PUT changes only the given fields and moves updated_at", async () => {
    const created = await alice.post("/api/notes", { title: "Before", content: "keep me", tags: ["a", "b"] });
    await backdateNote(server, created.body.id);
    const before = (await alice.get(`/api/notes/${created.body.id}`)).body.updated_at;
    const updated = await alice.put(`/api/notes/${created.body.id}`, { title: " After " });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ title: "After", content: "keep me", tags: ["a", "b"], created_at: created.body.created_at });
    expect(Date.parse(updated.body.updated_at)).toBeGreaterThan(Date.parse(before));
    const retagged = await alice.put(`/api/notes/${created.body.id}`, { tags: ["c", "c", "d"], content: "new" });
    expect(retagged.body).toMatchObject({ title: "After", content: "new", tags: ["c", "d"] });
  });

  test("PUT with nothing to change or bad fields is a 400", async () => {
    const created = await alice.post("/api/notes", { title: "x" });
    expectError(await alice.put(`/api/notes/${created.body.id}`, {}), 400, "BAD_REQUEST");
    expectError(await alice.put(`/api/notes/${created.body.id}`, { title: "" }), 400, "BAD_REQUEST");
    expectError(await alice.put(`/api/notes/${created.body.id}`, { tags: [1] }), 400, "BAD_REQUEST");
  });

  test("DELETE answers 204 with no body, then the note is gone", async () => {
    const created = await alice.post("/api/notes", { title: "doomed" });
    const deleted = await alice.delete(`/api/notes/${created.body.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expectError(await alice.get(`/api/notes/${created.body.id}`), 404, "NOT_FOUND");
    expectError(await alice.delete(`/api/notes/${created.body.id}`), 404, "NOT_FOUND");
  });

  test.each(["abc", "0", "-1", "1.5", "99999999999999999999"])("an id of %s is a 400", async (id) => {
    expectError(await alice.get(`/api/notes/${id}`), 400, "BAD_REQUEST");
  });

  test("a missing note is a 404 on every operation", async () => {
    expectError(await alice.get("/api/notes/987654"), 404, "NOT_FOUND");
    expectError(await alice.put("/api/notes/987654", { title: "x" }), 404, "NOT_FOUND");
    expectError(await alice.delete("/api/notes/987654"), 404, "NOT_FOUND");
  });
});

describe("another user's note", () => {
  test("is a 404 on read, update and delete, and stays unchanged", async () => {
    const secret = await alice.post("/api/notes", { title: "Alice's secret", content: "private", tags: ["private"] });
    const id = secret.body.id;
    const missing = await bob.get("/api/notes/987655");
    const read = await bob.get(`/api/notes/${id}`);
    expectError(read, 404, "NOT_FOUND");
    expect(read.body.message).toBe(missing.body.message.replace("987655", String(id)));
    expectError(await bob.put(`/api/notes/${id}`, { title: "pwned" }), 404, "NOT_FOUND");
    expectError(await bob.delete(`/api/notes/${id}`), 404, "NOT_FOUND");
    expect((await alice.get(`/api/notes/${id}`)).body).toEqual(secret.body);
  });

  test("never appears in lists or tag filters", async () => {
    await alice.post("/api/notes", { title: "shared tag", tags: ["common"] });
    const list = await bob.get("/api/notes?tag=common");
    expect(list.body.total).toBe(0);
    expect(list.body.items).toEqual([]);
    const all = await bob.get("/api/notes?size=100");
    expect(all.body.items.every((item: { title: string }) => !item.title.includes("Alice"))).toBe(true);
  });
});

describe("listing", () => {
  let lister: Api;
  const ids: number[] = [];

  beforeAll(async () => {
    lister = (await api.newUser("lister")).api;
    for (let i = 0; i < 25; i++) {
      const tags = i % 3 === 0 ? ["three"] : i % 2 === 0 ? ["two", "even"] : [];
      const response = await lister.post("/api/notes", { title: `Note ${i}`, content: `**Body** of note ${i}. `.repeat(30), tags });
      ids.push(response.body.id);
    }
  });

  test("returns the envelope, newest first, with excerpts and no content", async () => {
    const response = await lister.get("/api/notes");
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ total: 25, page: 1, size: 20, pages: 2 });
    expect(response.body.items).toHaveLength(20);
    expect(response.body.items.map((item: { id: number }) => item.id)).toEqual([...ids].reverse().slice(0, 20));
    const first = response.body.items[0];
    expect(Object.keys(first).sort()).toEqual(["created_at", "excerpt", "id", "source", "tags", "title", "updated_at"]);
    expect(first.source).toBeNull();
    expect(first.excerpt.startsWith("Body of note 24.")).toBe(true);
    expect([...first.excerpt].length).toBe(200);
  });

  test("pages through all notes and past the end", async () => {
    const second = await lister.get("/api/notes?page=2&size=20");
    expect(second.body.items).toHaveLength(5);
    const beyond = await lister.get("/api/notes?page=9&size=10");
    expect(beyond.body).toEqual({ items: [], total: 25, page: 9, size: 10, pages: 3 });
  });

  test("a just-updated note moves to the front; ties break by id descending", async () => {
    await lister.put(`/api/notes/${ids[3]}`, { title: "Touched" });
    const response = await lister.get("/api/notes?size=2");
    expect(response.body.items[0].id).toBe(ids[3]);
    expect(response.body.items[0].title).toBe("Touched");
  });

  test("filters by one exact tag, with its own total", async () => {
    const three = await lister.get("/api/notes?tag=three&size=100");
    expect(three.body.total).toBe(9);
    expect(three.body.items.every((item: { tags: string[] }) => item.tags.includes("three"))).toBe(true);
    const even = await lister.get("/api/notes?tag=even");
    expect(even.body.total).toBe(8);
    expect((await lister.get("/api/notes?tag=thre")).body.total).toBe(0);
  });

  test("tag counts follow retagging and deletion", async () => {
    const note = await lister.post("/api/notes", { title: "mover", tags: ["moving"] });
    expect((await lister.get("/api/notes?tag=moving")).body.total).toBe(1);
    await lister.put(`/api/notes/${note.body.id}`, { tags: ["moved"] });
    expect((await lister.get("/api/notes?tag=moving")).body.total).toBe(0);
    expect((await lister.get("/api/notes?tag=moved")).body.total).toBe(1);
    await lister.delete(`/api/notes/${note.body.id}`);
    expect((await lister.get("/api/notes?tag=moved")).body.total).toBe(0);
    expect((await lister.get("/api/notes")).body.total).toBe(25);
  });

  test.each(["page=0", "page=-1", "page=abc", "size=0", "size=101", "size=2.5", "page=1000001", "tag="])(
    "rejects %s with 400",
    async (query) => {
      const response = await lister.get(`/api/notes?${query}`);
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.issues.length).toBeGreaterThan(0);
    },
  );

  test("an empty account has an empty first page", async () => {
    const { api: empty } = await api.newUser("empty");
    expect((await empty.get("/api/notes")).body).toEqual({ items: [], total: 0, page: 1, size: 20, pages: 0 });
  });
});

test("a listed note's excerpt has its HTML entities decoded", async () => {
  const { api: reader } = await api.newUser("entities");
  await reader.post("/api/notes", { title: "Entities", content: "Caf&eacute; &copy; &mdash; &#x4e2d; &amp;amp;" });
  const list = await reader.get("/api/notes");
  expect(list.body.items[0].excerpt).toBe("Café © — 中 &amp;");
});
