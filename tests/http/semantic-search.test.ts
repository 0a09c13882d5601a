import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pg from "pg";
import { SCHEMA } from "../../src/jobs/graphile-internals";
import { Api, expectError } from "../support/api";
import { importArchive } from "../support/archive-import";
import { awaitBuild } from "../support/await-build";
import { awaitEmbedded as embedded } from "../support/await-embedded";
import { buildZip } from "../support/zip-builder";
import { startFakeEmbeddings } from "../support/fake-embeddings";
import { serverForThisFile } from "../support/server";
import { until } from "../support/until";

const embeddings = startFakeEmbeddings({ dimensions: 64, apiKey: "sk-test" });
afterAll(() => embeddings.stop());
// Without the one-minute sweep (it would embed what nobody asked for), so each test sees only the change events' own jobs, at any second of a minute.
const { server, api } = await serverForThisFile(
  { EMBEDDINGS_BASE_URL: embeddings.url, EMBEDDINGS_MODEL: "fake-embed", EMBEDDINGS_API_KEY: "sk-test", EMBEDDINGS_BATCH: "8", GRAPH_EXTRACTOR: "local" },
  { unscheduled: ["semantic-sweep"] },
);
const { api: alice, id: aliceId } = await api.newUser("alice");
const bob = (await api.newUser("bob")).api;
const queueDb = new pg.Client({ connectionString: server.databaseUrl });
await queueDb.connect();
afterAll(() => queueDb.end());

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

/** True while an embedding job of the user's is queued or running. */
async function embeddingJobOf(userId: number): Promise<boolean> {
  const { rows } = await queueDb.query(
    `select 1 from ${SCHEMA}._private_jobs j join ${SCHEMA}._private_tasks t on t.id = j.task_id
      where t.identifier = 'semantic-embed' and (j.payload->>'userId')::int = $1 limit 1`,
    [userId],
  );
  return rows.length > 0;
}

/** Whether the note's deletion still waits for an embedding job to clear its vectors. */
async function removalPending(noteId: number): Promise<boolean> {
  const notes = server.openNotesClient();
  try {
    return (await notes.execute({ sql: "select 1 from semantic_removed where note_id = ?", args: [noteId] })).rows.length > 0;
  } finally {
    notes.close();
  }
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

  test("a query's cached vector serves only the user who asked: another user's same query goes to the server", async () => {
    const q = "which automobile to buy next spring";
    const asked = () => embeddings.requests.filter((request) => request.input.includes(q)).length;
    await search(alice, q, "&mode=semantic");
    expect(asked()).toBe(1);
    await search(alice, q, "&mode=semantic");
    expect(asked()).toBe(1);
    await search(bob, q, "&mode=semantic");
    expect(asked()).toBe(2);
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

  test("a note is embedded within seconds while its user keeps writing: edits every 150 ms never push the embedding back", async () => {
    const id = await create(alice, { title: "Car dealer", content: "Purchasing an automobile at the dealer on Friday." });
    const typist = await create(alice, { title: "Diary", content: "draft" });
    let writing = true;
    const autosaves = (async () => {
      for (let n = 0; writing; n++) {
        expect((await alice.put(`/api/notes/${typist}`, { content: `draft ${n}` })).status).toBe(200);
        await Bun.sleep(150);
      }
    })();
    try {
      await until(async () => ((await search(alice, "buy a car", "&mode=semantic")).ids.includes(id) ? true : null), {
        what: "the note to be found by meaning while another note is edited every 150 ms",
        timeoutMs: 8_000,
        intervalMs: 100,
      });
    } finally {
      writing = false;
      await autosaves;
    }
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
    await until(async () => !(await embeddingJobOf(aliceId)), { what: "alice's embedding job to end" });
    expect((await alice.delete(`/api/notes/${id}`)).status).toBe(204);
    // The deletion's own job would embed the note restored meanwhile: it ends first (only it can clear the removal).
    await until(async () => !(await removalPending(id)) && !(await embeddingJobOf(aliceId)), { what: "the deletion's embedding job to end" });
    expect((await alice.post(`/api/trash/${id}/restore`, {})).status).toBe(200);
    // The sweep is off here: only the restore's own event can queue the embedding.
    await until(async () => ((await search(alice, "buy a car", "&mode=semantic")).ids.includes(id) ? true : null), {
      what: "the restored note to be found by meaning",
      timeoutMs: 15_000,
      intervalMs: 100,
    });
  });

  test("an archive import's notes are searchable by meaning within seconds of its task completing", async () => {
    const task = await importArchive(alice, buildZip([{ name: "Garage.md", data: "Purchasing an automobile from a neighbour." }]));
    expect(task).toMatchObject({ status: "completed", counts: { created: 1 } });
    const [note] = (await alice.get("/api/notes?q=Garage&mode=lexical")).body.items;
    await until(async () => ((await search(alice, "buy a car", "&mode=semantic")).ids.includes(note.id) ? true : null), {
      what: "the imported note to be found by meaning",
      timeoutMs: 15_000,
      intervalMs: 100,
    });
  });

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

describe("merge suggestions", () => {
  let carol: Api;
  let carolId: number;
  const pairsOf = (items: { nodes: { label: string }[] }[]) => items.map((item) => item.nodes.map((node) => node.label.toLowerCase()).sort().join(" + "));

  test("within seconds of a build, one concept named in two languages is suggested, and concepts that merely share a sentence are not", async () => {
    ({ api: carol, id: carolId } = await new Api(server.url).newUser("carol"));
    for (const note of [
      { title: "Rain in Kyoto", content: "A sudden downpour in Kyoto soaked everything. The forecast had promised sun, so I left my umbrella at the hotel." },
      { title: "小猫打疫苗", content: "小猫今天打了第一针疫苗。医生说小猫很健康，疫苗下个月再打一针。" },
      { title: "Kitten care", content: "The kitten slept all afternoon after the vet visit. A kitten needs a warm, quiet corner." },
      { title: "Biases", content: "Loss aversion means a loss hurts more than an equal gain pleases. Loss aversion shapes how people decide." },
      { title: "行为经济学", content: "损失厌恶是指人们对损失比对收益更敏感。损失厌恶影响人们的决策。" },
    ]) await create(carol, note);
    await embedded(carol);
    expect((await carol.post("/api/knowledge-graph/build", {})).status).toBe(202);
    expect((await awaitBuild(carol)).status.status).toBe("completed");
    // The build's own event queues its concepts' embedding (the sweep is off here, and nothing has asked for suggestions yet).
    await until(() => embeddings.embedded().includes("小猫"), { what: "the new concepts' labels to be embedded", timeoutMs: 15_000, intervalMs: 100 });
    const { items } = await until(async () => (await carol.get("/api/knowledge-graph/merge-suggestions")).body, {
      what: "merge suggestions from the new concepts",
      timeoutMs: 15_000,
      intervalMs: 100,
      done: (body) => body.items.length >= 2,
    });
    expect(pairsOf(items).slice(0, 2).sort()).toEqual(["kitten + 小猫", "loss aversion + 损失厌恶"]);
    // The local extractor describes a concept by the sentence that first names it: no pair may be two names from one sentence.
    const { nodes } = (await carol.get("/api/knowledge-graph")).body as { nodes: { id: number; description: string }[] };
    const description = new Map(nodes.map((node) => [node.id, node.description]));
    const sharing = items.filter((item: { nodes: { id: number }[] }) => description.get(item.nodes[0]!.id) && description.get(item.nodes[0]!.id) === description.get(item.nodes[1]!.id));
    expect(sharing).toEqual([]);
    expect((await bob.get("/api/knowledge-graph/merge-suggestions")).body.items).toEqual([]);
  });

  test("concepts embedded before labels were gain their label vectors in the background, however often suggestions are asked for meanwhile", async () => {
    // An installation from before label vectors: its concepts have only their label-and-description ones.
    const notes = server.openNotesClient();
    try {
      const { rows } = await notes.execute("select table_name from semantic_spaces");
      const removed = await notes.execute({ sql: `delete from ${String(rows[0]!.table_name)} where user_id = ? and kind = 'label'`, args: [carolId] });
      expect(removed.rowsAffected).toBeGreaterThan(0);
    } finally {
      notes.close();
    }
    // Asked every 100 ms, as a page might: each ask queues the embedding without pushing a queued one back.
    const { items } = await until(async () => (await carol.get("/api/knowledge-graph/merge-suggestions")).body, {
      what: "merge suggestions once the labels are embedded again",
      timeoutMs: 15_000,
      intervalMs: 100,
      done: (body) => body.items.length >= 2,
    });
    expect(pairsOf(items).slice(0, 2).sort()).toEqual(["kitten + 小猫", "loss aversion + 损失厌恶"]);
  });
});
