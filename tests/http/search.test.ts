import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Api, expectError } from "../support/api";
import { startTestServer, type TestServer } from "../support/server";

let server: TestServer;
let alice: Api;
let bob: Api;

beforeAll(async () => {
  server = await startTestServer();
  const api = new Api(server.url);
  alice = (await api.newUser("alice")).api;
  bob = (await api.newUser("bob")).api;
});
afterAll(() => server.stop());

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

  test("every term must match", async () => {
    expect((await search(alice, "redis 图谱")).ids).toEqual([]);
  });

  test("search never sees another user's notes", async () => {
    expect((await search(bob, "redis")).body).toMatchObject({ items: [], total: 0, pages: 0 });
  });
});
