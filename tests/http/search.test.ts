import { beforeAll, describe, expect, test } from "bun:test";
import { createTRPCClient, httpLink } from "@trpc/client";
import type { AppRouter } from "../../src/trpc/root";
import { Api, expectError } from "../support/api";
import { serverForThisFile } from "../support/server";

const { server, api } = await serverForThisFile();
const alice = (await api.newUser("alice")).api;
const bob = (await api.newUser("bob")).api;

async function create(user: Api, note: { title: string; content?: string; tags?: string[] }): Promise<number> {
  const response = await user.post("/api/notes", note);
  expect(response.status).toBe(201);
  return response.body.id;
}

async function search(user: Api, q: string, extra = ""): Promise<{ ids: number[]; body: any }> {
  const response = await user.get(`/api/notes?q=${encodeURIComponent(q)}${extra}`);
  expect(response.status).toBe(200);
  return { ids: response.body.items.map((item: { id: number }) => item.id), body: response.body };
}

describe("matching", () => {
  let graph: number;
  let cache: number;
  let cafe: number;
  let japanese: number;
  let wide: number;
  beforeAll(async () => {
    graph = await create(alice, { title: "读书笔记", content: "今天学习了知识图谱构建的方法。" });
    cache = await create(alice, { title: "Caching", content: "我们用Redis做缓存，效果很好。" });
    cafe = await create(alice, { title: "Paris", content: "The **Café** de Flore serves a naïve crème brûlée." });
    japanese = await create(alice, { title: "メモ", content: "東京でラーメンを食べました。" });
    wide = await create(alice, { title: "Ｆｕｌｌ　ｗｉｄｔｈ", content: "ＡＢＣ１２３ machine learning and deep learning" });
  });

  test.each([
    ["图谱", "graph"],
    ["知识图谱", "graph"],
    ["知识图谱构建", "graph"],
    ["谱", "graph"],
    ["redis", "cache"],
    ["做", "cache"],
    ["好", "cache"],
    ["很好", "cache"],
    ["redis做", "cache"],
    ["用Redis做缓存", "cache"],
    ['"做缓存 效果"', "cache"],
    ["缓存", "cache"],
    ["REDIS 缓存", "cache"],
    ["cafe", "cafe"],
    ["CAFÉ", "cafe"],
    ["creme brulee", "cafe"],
    ["ラーメン", "japanese"],
    ["東京", "japanese"],
    ["ｒａｍｅｎ ラーメン", null],
    ["abc123", "wide"],
    ["ＦＵＬＬ", "wide"],
    ['"machine learning"', "wide"],
    ["mach*", "wide"],
    ["知识 -构建", null],
    ["知识图谱 -redis", "graph"],
    ['"learning machine"', null],
    ["图构", null],
  ])("%s finds %s", async (q, expected) => {
    const ids = { graph, cache, cafe, japanese, wide } as Record<string, number>;
    const { ids: found } = await search(alice, q);
    expect(found).toEqual(expected === null ? [] : [ids[expected]!]);
  });

  test("a query of exclusions only lists the notes without them", async () => {
    const { ids } = await search(alice, "-redis -知识 -ラーメン -cafe");
    expect(ids).toEqual([wide]);
  });

  test("a prefix highlights the whole word it matched", async () => {
    const { body } = await search(alice, "learn*");
    const [item] = body.items;
    expect(item.highlights.map(([s, e]: [number, number]) => item.snippet.slice(s, e))).toEqual(["learning", "learning"]);
  });

  test("every term must match", async () => {
    expect((await search(alice, "redis 图谱")).ids).toEqual([]);
  });

  test("search never sees another user's notes", async () => {
    expect((await search(bob, "redis")).body).toMatchObject({ items: [], total: 0, pages: 0 });
    const bobs = await create(bob, { title: "Redis too", content: "redis 知识图谱", tags: ["shared"] });
    await alice.put(`/api/notes/${cache}`, { tags: ["shared"] });
    expect((await search(bob, "redis")).ids).toEqual([bobs]);
    expect((await search(alice, "redis", "&tag=shared")).ids).toEqual([cache]);
    expect((await search(bob, "-nothing")).ids).toEqual([bobs]);
    expect((await search(bob, "知识图谱")).ids).toEqual([bobs]);
  });
});

describe("ranking", () => {
  test("title or tag matches come before body-only matches, ties newest first", async () => {
    const user = (await new Api(server.url).newUser("ranker")).api;
    const bodyOnly = await create(user, { title: "Notes", content: "a long text where zebra appears once among many other words here" });
    const inTitle = await create(user, { title: "Zebra facts", content: "stripes" });
    const inTag = await create(user, { title: "Animals", content: "savanna", tags: ["zebra"] });
    const twinOld = await create(user, { title: "Twin", content: "zebra zebra" });
    const twinNew = await create(user, { title: "Twin", content: "zebra zebra" });
    const { ids, body } = await search(user, "zebra");
    expect(body.total).toBe(5);
    expect(new Set(ids.slice(0, 2))).toEqual(new Set([inTitle, inTag]));
    expect(ids.slice(2)).toEqual([twinNew, twinOld, bodyOnly]);
    // Pages split across the two groups without losing or repeating a note.
    const pages = [];
    for (let page = 1; page <= 3; page++) pages.push(...(await search(user, "zebra", `&size=2&page=${page}`)).ids);
    expect(pages).toEqual(ids);
  });
});

describe("snippets and highlights", () => {
  test("a plain-text window around the match, offsets in UTF-16 units through emoji and CJK", async () => {
    const user = (await new Api(server.url).newUser("snipper")).api;
    const filler = "Lorem ipsum dolor sit amet. ".repeat(20);
    await create(user, { title: "Long", content: `${filler}\n\n**Emoji** 🚀🚀 then 知识图谱 &amp; more 🚀 知识图谱.\n\n${filler}` });
    const { body } = await search(user, "知识图谱");
    const [item] = body.items;
    expect(item.snippet.length).toBeLessThanOrEqual(240);
    expect(item.snippet).not.toContain("**");
    expect(item.snippet).toContain("& more");
    expect(item.highlights).toHaveLength(2);
    for (const [start, end] of item.highlights) expect(item.snippet.slice(start, end)).toBe("知识图谱");
  });

  test("accented and full-width text is highlighted as written", async () => {
    const user = (await new Api(server.url).newUser("accents")).api;
    await create(user, { title: "x", content: "Une CRÈME brûlée, puis ｃｒｅｍｅ." });
    const { body } = await search(user, "creme");
    const [item] = body.items;
    expect(item.highlights.map(([s, e]: [number, number]) => item.snippet.slice(s, e))).toEqual(["CRÈME", "ｃｒｅｍｅ"]);
  });

  test("a note matching only in its title gets the start of its text", async () => {
    const user = (await new Api(server.url).newUser("titled")).api;
    await create(user, { title: "Quokka", content: "# Heading\n\nSome *body* text." });
    const { body } = await search(user, "quokka");
    expect(body.items[0]).toMatchObject({ snippet: "Heading Some body text.", highlights: [] });
  });
});

describe("freshness", () => {
  test("a note is found after create and update, and never after delete", async () => {
    const user = (await new Api(server.url).newUser("fresh")).api;
    const id = await create(user, { title: "Ephemeral", content: "wombat" });
    expect((await search(user, "wombat")).ids).toEqual([id]);
    expect((await user.put(`/api/notes/${id}`, { content: "platypus" })).status).toBe(200);
    expect((await search(user, "wombat")).ids).toEqual([]);
    expect((await search(user, "platypus")).ids).toEqual([id]);
    expect((await user.put(`/api/notes/${id}`, { tags: ["marsupial"] })).status).toBe(200);
    expect((await search(user, "marsupial")).ids).toEqual([id]);
    expect((await user.delete(`/api/notes/${id}`)).status).toBe(204);
    expect((await search(user, "platypus")).body.total).toBe(0);
  });

  test("create and update write the index themselves, leaving nothing for a later catch-up", async () => {
    const user = (await new Api(server.url).newUser("direct")).api;
    const id = await create(user, { title: "Direct", content: "koala" });
    await user.put(`/api/notes/${id}`, { title: "Directly" });
    const client = server.openNotesClient();
    try {
      expect((await client.execute({ sql: "select count(*) as n from search_backlog where note_id = ?", args: [id] })).rows[0]!.n).toBe(0);
    } finally {
      client.close();
    }
  });

  test("a note another writer inserts (an import, a note from before the index) is found", async () => {
    const registered = await new Api(server.url).newUser("rawwriter");
    const client = server.openNotesClient();
    try {
      const inserted = await client.execute({
        sql: "insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at) values (?, 'Imported', '外部写入的笔记', '', '[]', 1, 1) returning id",
        args: [registered.id],
      });
      const { ids } = await search(registered.api, "写入");
      expect(ids).toEqual([Number(inserted.rows[0]!.id)]);
      expect((await client.execute("select count(*) as n from search_backlog")).rows[0]!.n).toBe(0);
    } finally {
      client.close();
    }
  });
});

describe("filters and pages", () => {
  test("tag, page and size combine with q", async () => {
    const user = (await new Api(server.url).newUser("filters")).api;
    const tagged = [];
    for (let i = 0; i < 3; i++) tagged.push(await create(user, { title: `Otter ${i}`, content: "river", tags: ["Mammal"] }));
    await create(user, { title: "Otter untagged", content: "river" });
    await create(user, { title: "Heron", content: "river", tags: ["mammal"] });
    const { body } = await search(user, "otter", "&tag=Mammal&size=2&page=2");
    expect(body).toMatchObject({ total: 3, page: 2, size: 2, pages: 2 });
    expect(body.items).toHaveLength(1);
    expect(body.items[0].tags).toEqual(["Mammal"]);
  });

  test("a blank q is the plain list", async () => {
    const user = (await new Api(server.url).newUser("blank")).api;
    const id = await create(user, { title: "Anything" });
    const { body } = await search(user, "   ");
    expect(body.items.map((item: any) => item.id)).toEqual([id]);
    expect(body.items[0].snippet).toBeUndefined();
  });
});

describe("hostile queries", () => {
  test.each(['NEAR(wombat', "wombat AND", "OR wombat", "NOT wombat", "title:wombat", "^wombat", 'wom"bat', "wombat)", "{body}: wombat"])(
    "%j is searched as words, never a 500",
    async (q) => {
      const response = await alice.get(`/api/notes?q=${encodeURIComponent(q)}`);
      expect(response.status).toBe(200);
    },
  );

  test("operator words are ordinary words", async () => {
    const user = (await new Api(server.url).newUser("operators")).api;
    const id = await create(user, { title: "Logic", content: "cats AND dogs, NEAR the end" });
    expect((await search(user, "AND")).ids).toEqual([id]);
    expect((await search(user, "near(")).ids).toEqual([id]);
  });

  test.each(['"', '""', "-", "*", "- * \"\"", "^", "🚀"])("%j has nothing to search: a 400 saying so", async (q) => {
    const response = await alice.get(`/api/notes?q=${encodeURIComponent(q)}`);
    expectError(response, 400, "BAD_REQUEST");
    expect(response.text).toContain("nothing to search");
  });

  test("201 characters is a 400 for length; 200 is fine", async () => {
    expectError(await alice.get(`/api/notes?q=${"a".repeat(201)}`), 400, "BAD_REQUEST");
    expect((await alice.get(`/api/notes?q=${"a".repeat(200)}`)).status).toBe(200);
  });
});

test("the tRPC procedure notes.list takes q too", async () => {
  const registered = await new Api(server.url).newUser("rpc");
  const token = await new Api(server.url).login(registered.username, registered.password);
  const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${server.url}/trpc`, headers: () => ({ authorization: `Bearer ${token}` }) })] });
  const note = await client.notes.create.mutate({ title: "RPC", content: "用Redis做缓存" });
  const page = await client.notes.list.query({ q: "redis" });
  expect(page.items.map((item) => [item.id, item.snippet, item.highlights])).toEqual([[note.id, "用Redis做缓存", [[1, 6]]]]);
});

describe("without embeddings", () => {
  test("every search says it was lexical, whatever mode was asked; the search status says so too", async () => {
    await create(alice, { title: "Lexical only", content: "purchasing an automobile" });
    for (const mode of ["", "&mode=hybrid", "&mode=semantic", "&mode=lexical"]) {
      const found = await search(alice, "automobile", mode);
      expect(found.body.mode).toBe("lexical");
      expect(found.body.items.length).toBeGreaterThan(0);
    }
    expect((await search(alice, "buy a car")).ids).toEqual([]);
    expect((await alice.get("/api/notes")).body.mode).toBeUndefined();
    const status = await alice.get("/api/search/status");
    expect(status.body).toMatchObject({ mode: "lexical", model: null, dimensions: null, pending: 0, error: null });
  });
});
