import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Api, expectError } from "../support/api";
import { importArchive } from "../support/archive-import";
import { buildZip } from "../support/zip-builder";
import { startFakeEmbeddings } from "../support/fake-embeddings";
import { serverForThisFile } from "../support/server";
import { until } from "../support/until";

const embeddings = startFakeEmbeddings({ dimensions: 64, apiKey: "sk-test" });
afterAll(() => embeddings.stop());
const { server, api } = await serverForThisFile({ EMBEDDINGS_BASE_URL: embeddings.url, EMBEDDINGS_MODEL: "fake-embed", EMBEDDINGS_API_KEY: "sk-test", EMBEDDINGS_BATCH: "8" });
const alice = (await api.newUser("alice")).api;
const bob = (await api.newUser("bob")).api;

async function create(user: Api, note: { title: string; content?: string; tags?: string[] }): Promise<number> {
  const response = await user.post("/api/notes", note);
  expect(response.status).toBe(201);
  return response.body.id;
}

async function search(user: Api, q: string, extra = "") {
  const response = await user.get(`/api/notes?q=${encodeURIComponent(q)}${extra}`);
  expect(response.status).toBe(200);
  return { ids: response.body.items.map((item: { id: number }) => item.id) as number[], body: response.body };
}

/**
 * Waits until the clock is between 10 and 40 s past a minute, so that a 15 s wait after it ends
 * before the next minute: the one-minute sweep (which would also embed a note nobody asked for)
 * then cannot be what a test sees.
 */
async function clearOfTheSweep() {
  const second = (Date.now() % 60_000) / 1000;
  if (second < 10 || second >= 40) await Bun.sleep(((70 - second) % 60) * 1000);
}

/** Waits until every one of the user's notes is embedded (the status says so). */
async function embedded(user: Api) {
  return until(
    async () => {
      const status = (await user.get("/api/search/status")).body;
      return status.pending === 0 && status.mode === "hybrid" ? status : null;
    },
    { what: "the user's notes to be embedded", timeoutMs: 30_000, intervalMs: 100 },
  );
}

describe("search by meaning", () => {
  let car: number;
  let anchoringZh: number;
  let anchoringEn: number;
  let sqlite: number;
  let graphZh: number;
  let bread: number;
  beforeAll(async () => {
    car = await create(alice, { title: "Weekend plans", content: "Thinking about purchasing an automobile before the holidays." });
    anchoringZh = await create(alice, { title: "《思考，快与慢》读书笔记", content: "印象最深的是锚定效应：先看到的数字会影响之后的判断。" });
    anchoringEn = await create(alice, { title: "Biases", content: "The anchoring effect: the first number seen sways later judgments." });
    sqlite = await create(alice, { title: "SQLite settings", content: "Set busy_timeout so a writer waits for the lock instead of failing at once." });
    graphZh = await create(alice, { title: "读书笔记", content: "今天学习了知识图谱构建的方法。" });
    bread = await create(alice, { title: "Sourdough", content: "Bake the loaf in a hot oven for forty minutes." });
    await create(bob, { title: "Bob's car", content: "I bought a car: purchasing an automobile was easy." });
    await embedded(alice);
    await embedded(bob);
  });

  test("the status counts the caller's own notes and names the model", async () => {
    const status = (await alice.get("/api/search/status")).body;
    expect(status).toEqual({ mode: "hybrid", model: "fake-embed", dimensions: 64, notes_total: 6, notes_embedded: 6, pending: 0, error: null });
    expect((await bob.get("/api/search/status")).body.notes_total).toBe(1);
  });

  test("a query with no word in common finds its note by meaning (semantic and hybrid), and not by words", async () => {
    const lexical = await search(alice, "buy a car", "&mode=lexical");
    expect(lexical.ids).not.toContain(car);
    expect(lexical.body.mode).toBe("lexical");
    const semantic = await search(alice, "buy a car", "&mode=semantic");
    expect(semantic.body.mode).toBe("semantic");
    expect(semantic.ids[0]).toBe(car);
    const hybrid = await search(alice, "buy a car");
    expect(hybrid.body.mode).toBe("hybrid");
    expect(hybrid.ids[0]).toBe(car);
    const item = hybrid.body.items[0];
    expect(item.highlights).toEqual([]);
    expect(item.snippet).toContain("purchasing an automobile");
    expect(typeof item.score).toBe("number");
  });

  test("the English question finds the Chinese note", async () => {
    const hybrid = await search(alice, "What is the anchoring effect?");
    expect(hybrid.ids).toContain(anchoringZh);
    expect(hybrid.ids).toContain(anchoringEn);
    const lexical = await search(alice, "What is the anchoring effect?", "&mode=lexical");
    expect(lexical.ids).not.toContain(anchoringZh);
  });

  test("an exact name stays first in hybrid", async () => {
    expect((await search(alice, "busy_timeout")).ids[0]).toBe(sqlite);
    expect((await search(alice, "知识图谱")).ids[0]).toBe(graphZh);
  });

  test("unrelated notes stay out below the similarity floor", async () => {
    const found = await search(alice, "buy a car", "&mode=semantic");
    expect(found.ids).not.toContain(bread);
    expect(found.ids).not.toContain(sqlite);
  });

  test("another user's notes never appear", async () => {
    const found = await search(alice, "buy a car", "&mode=semantic");
    for (const id of found.ids) expect((await alice.get(`/api/notes/${id}`)).status).toBe(200);
    const bobs = await search(bob, "buy a car", "&mode=semantic");
    expect(bobs.ids).not.toContain(car);
    expect(bobs.ids).toHaveLength(1);
  });

  test("a tag narrows a search by meaning", async () => {
    const tagged = await create(alice, { title: "Errands", content: "Acquire a vehicle for the family.", tags: ["family"] });
    await embedded(alice);
    const found = await search(alice, "buy a car", "&tag=family");
    expect(found.ids).toEqual([tagged]);
    await alice.delete(`/api/notes/${tagged}`);
  });

  test("related notes: nearest in meaning, never the note itself nor another user's", async () => {
    const response = await alice.get(`/api/notes/${anchoringEn}/related?limit=3`);
    expect(response.status).toBe(200);
    const ids = response.body.items.map((item: { id: number }) => item.id);
    expect(ids[0]).toBe(anchoringZh);
    expect(ids).not.toContain(anchoringEn);
    expect(response.body.items[0]).toMatchObject({ title: "《思考，快与慢》读书笔记", excerpt: expect.any(String), score: expect.any(Number) });
    expect(ids.length).toBeLessThanOrEqual(3);
    const bobsNote = (await search(bob, "car", "&mode=lexical")).ids[0];
    expect((await alice.get(`/api/notes/${bobsNote}/related`)).status).toBe(404);
    const bobsRelated = await bob.get(`/api/notes/${bobsNote}/related`);
    expect(bobsRelated.body.items).toEqual([]);
  });

  test("ask retrieves by meaning too: the English question cites the Chinese note", async () => {
    const response = await alice.post("/api/ask", { question: "What is the anchoring effect?" });
    expect(response.status).toBe(200);
    const notes = response.body.passages.map((passage: { note_id: number }) => passage.note_id);
    expect(notes).toContain(anchoringZh);
    expect(notes).toContain(anchoringEn);
    const bobs = await bob.post("/api/ask", { question: "What is the anchoring effect?" });
    expect(bobs.body.passages.map((passage: { note_id: number }) => passage.note_id)).not.toContain(anchoringZh);
  });

  test("bad input is a 400: a limit out of range, a query with nothing to search, an unknown mode", async () => {
    expectError(await alice.get(`/api/notes/${car}/related?limit=51`), 400, "BAD_REQUEST");
    expectError(await alice.get(`/api/notes?q=${encodeURIComponent('""')}&mode=semantic`), 400, "BAD_REQUEST");
    expectError(await alice.get("/api/notes?q=car&mode=fuzzy"), 400, "BAD_REQUEST");
    expectError(await alice.get("/api/notes/999999/related"), 404, "NOT_FOUND");
  });

  test("an edit re-embeds only the passages that changed", async () => {
    const first = "Plants in the garden need water every second day, more in July when the soil dries out by noon.";
    const id = await create(alice, { title: "Garden", content: `${first}\n\nThe garden gets morning sun along the east fence, where the tomatoes grow best.` });
    await embedded(alice);
    const before = embeddings.embedded().length;
    const edited = "The garden gets evening sun along the west fence, where the beans grow best.";
    expect((await alice.put(`/api/notes/${id}`, { content: `${first}\n\n${edited}` })).status).toBe(200);
    await embedded(alice);
    expect(embeddings.embedded().slice(before)).toEqual([edited]);
  });

  test("a deleted note leaves search by meaning at once", async () => {
    const id = await create(alice, { title: "Dealer visit", content: "Purchasing a vehicle next week." });
    await embedded(alice);
    expect((await search(alice, "buy a car", "&mode=semantic")).ids).toContain(id);
    expect((await alice.delete(`/api/notes/${id}`)).status).toBe(204);
    expect((await search(alice, "buy a car", "&mode=semantic")).ids).not.toContain(id);
  });

  test("a note back from the trash is searchable by meaning again within seconds: every writer's change event queues the embedding, not only the notes API's", async () => {
    const id = await create(alice, { title: "Showroom", content: "Purchasing a vehicle after the test drive." });
    await embedded(alice);
    await clearOfTheSweep();
    expect((await alice.delete(`/api/notes/${id}`)).status).toBe(204);
    expect((await alice.post(`/api/trash/${id}/restore`, {})).status).toBe(200);
    // The sweep runs once a minute; the restore's own event must not wait for it.
    await until(async () => ((await search(alice, "buy a car", "&mode=semantic")).ids.includes(id) ? true : null), {
      what: "the restored note to be found by meaning",
      timeoutMs: 15_000,
      intervalMs: 100,
    });
   }, 90_000);

  test("an archive import's notes are searchable by meaning within seconds of its task completing", async () => {
    await clearOfTheSweep();
    const task = await importArchive(alice, buildZip([{ name: "Garage.md", data: "Purchasing an automobile from a neighbour." }]));
    expect(task).toMatchObject({ status: "completed", counts: { created: 1 } });
    const [note] = (await alice.get("/api/notes?q=Garage&mode=lexical")).body.items;
    await until(async () => ((await search(alice, "buy a car", "&mode=semantic")).ids.includes(note.id) ? true : null), {
      what: "the imported note to be found by meaning",
      timeoutMs: 15_000,
      intervalMs: 100,
    });
   }, 90_000);

  test("every request carries the key, asks for floats and names no dimensions unless configured", () => {
    for (const request of embeddings.requests) {
      expect(request.authorization).toBe("Bearer sk-test");
      expect(request.encoding_format).toBe("float");
      expect(request.dimensions).toBeUndefined();
      expect(request.input.length).toBeLessThanOrEqual(8);
    }
  });

  test("with the server down, notes still save and search answers by words, saying so", async () => {
    embeddings.mode.status = 500;
    try {
      const id = await create(alice, { title: "Offline note", content: "Written while the embeddings server is down: automobile." });
      const found = await search(alice, "automobile");
      expect(found.body.mode).toBe("lexical");
      expect(found.ids).toContain(id);
    } finally {
      embeddings.mode.status = null;
    }
    await embedded(alice);
  });

  test("the embedding job waits out a 429's Retry-After and goes on", async () => {
    embeddings.mode.rateLimited = 1;
    embeddings.mode.retryAfterSeconds = 1;
    const before = embeddings.requests.length;
    const id = await create(alice, { title: "Rate limited", content: "Purchasing a vehicle at the second try." });
    const status = await embedded(alice);
    expect(status.error).toBeNull();
    const requests = embeddings.requests.slice(before);
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(1000);
    expect((await search(alice, "buy a car", "&mode=semantic")).ids).toContain(id);
  });

  test("a refused key stops embedding with a status error naming EMBEDDINGS_API_KEY; search stays usable", async () => {
    embeddings.mode.status = 401;
    let id: number;
    try {
      id = await create(alice, { title: "Refused", content: "Written while the key is refused." });
      const status = await until(async () => (await alice.get("/api/search/status")).body, {
        what: "the status to report the refused key",
        timeoutMs: 30_000,
        done: (body) => typeof body.error === "string",
      });
      expect(status.error).toContain("EMBEDDINGS_API_KEY");
      expect(status.pending).toBeGreaterThan(0);
      expect((await search(alice, "refused")).ids).toContain(id);
    } finally {
      embeddings.mode.status = null;
    }
    expect((await alice.put(`/api/notes/${id}`, { content: "Written while the key was refused; accepted now." })).status).toBe(200);
    expect((await embedded(alice)).error).toBeNull();
  });

  test("a slow server is not waited for past 2 s: the search answers by words", async () => {
    embeddings.mode.delayMs = 5000;
    try {
      const found = await search(alice, "something never asked before");
      expect(found.body.mode).toBe("lexical");
    } finally {
      embeddings.mode.delayMs = 0;
    }
  });
});
