import { unheardChanges } from "../support/changes";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { drizzle } from "drizzle-orm/libsql";
import * as schema from "../../src/db/schema";
import { Api } from "../support/api";
import { startFakeAnthropic } from "../support/fake-anthropic";
import { graphSnapshot } from "../support/graph-snapshot";
import { serverForThisFile } from "../support/server";
import { awaitBuild } from "../support/await-build";

const fake = await startFakeAnthropic({ latencyMs: 5 });
afterAll(() => fake.stop());
const { server, api } = await serverForThisFile({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_MODEL: "claude-haiku-4-5" });

const patch = (client: Api, path: string, json: unknown) => client.request("PATCH", path, { json });

async function build(client: Api, body: Record<string, unknown> = {}) {
  const before = fake.calls;
  const started = await client.post("/api/knowledge-graph/build", body);
  expect(started.status).toBe(202);
  const { status } = await awaitBuild(client);
  return { status, calls: fake.calls - before };
}

const note = (i: number, extra = "") => ({ title: `Trip ${i}`, content: `Visited [[Place ${i}]] with [[Guide ${i % 3}]].${extra}`, tags: [] });
const label = (graph: any, name: string) => graph.nodes.find((node: any) => node.label === name);

describe("dry runs and budgets", () => {
  test("a dry run answers 200 with what the build would extract and cost, and makes no LLM call", async () => {
    const { api: user } = await api.newUser("dry");
    for (let i = 0; i < 4; i++) await user.post("/api/notes", note(i));
    const before = fake.calls;
    const dry = await user.post("/api/knowledge-graph/build", { dry_run: true });
    expect(dry.status).toBe(200);
    expect(dry.body).toEqual({
      mode: "incremental",
      extractor: "anthropic",
      model: "claude-haiku-4-5",
      notes_total: 4,
      notes_to_extract: 4,
      notes_outdated: 0,
      notes_to_remove: 0,
      estimated_llm_calls: 4,
      estimated_input_tokens: expect.any(Number),
      estimated_output_tokens: expect.any(Number),
    });
    expect(fake.calls).toBe(before);
    expect((await user.get("/api/knowledge-graph/status")).body.status).toBe("idle");

    // The estimate comes from the real prompts: within a third of what the (fake) API then counts.
    const usageBefore = fake.usage.input_tokens;
    const { status } = await build(user);
    const actual = fake.usage.input_tokens - usageBefore;
    expect(status.usage.input_tokens).toBe(actual);
    expect(dry.body.estimated_input_tokens).toBeGreaterThan(actual * 0.67);
    expect(dry.body.estimated_input_tokens).toBeLessThan(actual * 1.33);
    expect(status).toMatchObject({ extractor: "anthropic", model: "claude-haiku-4-5", structured_output: "tools", budget_exhausted: false });
    expect(status.usage.estimated).toBe(false);

    const after = (await user.post("/api/knowledge-graph/build", { dry_run: true, mode: "full" })).body;
    expect(after).toMatchObject({ mode: "full", notes_to_extract: 4, estimated_llm_calls: 4 });
    expect((await user.post("/api/knowledge-graph/build", { dry_run: true })).body).toMatchObject({ notes_to_extract: 0, estimated_llm_calls: 0 });
  });

  test("a cap of 3 calls over 10 new notes makes exactly 3, then the next incremental build the other 7", async () => {
    const { api: user } = await api.newUser("budget");
    for (let i = 0; i < 10; i++) await user.post("/api/notes", note(i));
    const first = await build(user, { max_llm_calls: 3 });
    expect(first.calls).toBe(3);
    expect(first.status).toMatchObject({ status: "completed", budget_exhausted: true, notes_processed: 3 });
    expect(first.status.usage.llm_calls).toBe(3);
    expect(first.status.message).toContain("7 note(s) still wait");
    // The graph is built from what was extracted.
    expect((await user.get("/api/knowledge-graph")).body.nodes.length).toBeGreaterThan(0);
    expect((await user.post("/api/knowledge-graph/build", { dry_run: true })).body).toMatchObject({ notes_to_extract: 7, estimated_llm_calls: 7 });

    const second = await build(user);
    expect(second.calls).toBe(7);
    expect(second.status).toMatchObject({ status: "completed", budget_exhausted: false });
    const labels = (await user.get("/api/knowledge-graph")).body.nodes.map((node: any) => node.label);
    for (let i = 0; i < 10; i++) expect(labels).toContain(`Place ${i}`);

    // A full build cut short keeps the notes it did not reach in the graph, and the next incremental build redoes them.
    const full = await build(user, { mode: "full", max_llm_calls: 4 });
    expect(full.calls).toBe(4);
    expect(full.status).toMatchObject({ budget_exhausted: true });
    expect((await user.get("/api/knowledge-graph")).body.nodes.map((node: any) => node.label)).toEqual(expect.arrayContaining(labels));
    expect((await build(user)).calls).toBe(6);
  });

  test("an input-token cap stops the build before the call that would pass it", async () => {
    const { api: user } = await api.newUser("tokens");
    for (let i = 0; i < 5; i++) await user.post("/api/notes", note(i));
    const dry = (await user.post("/api/knowledge-graph/build", { dry_run: true })).body;
    const perCall = dry.estimated_input_tokens / dry.estimated_llm_calls;
    // Room for two calls by the estimate, not three.
    const cap = Math.max(1000, Math.ceil(perCall * 2.5));
    const { calls, status } = await build(user, { max_input_tokens: cap });
    expect(calls).toBe(2);
    expect(status).toMatchObject({ status: "completed", budget_exhausted: true, notes_processed: 2 });
    expect(status.message).toContain("3 note(s) still wait");
  });

  test("GRAPH_MAX_LLM_CALLS caps a build that sets no cap; a request's own cap wins", async () => {
    const { runGraphBuild } = await import("../../src/modules/graph/build-graph");
    const { loadConfig } = await import("../../src/config");
    expect(loadConfig({ GRAPH_MAX_LLM_CALLS: "2" }).graph.maxLlmCalls).toBe(2);
    expect(loadConfig({}).graph.maxLlmCalls).toBeUndefined();
    const settings = { extractor: "anthropic" as const, llmConcurrency: 2, maxLlmCalls: 2, anthropic: { apiKey: "test-key", baseURL: fake.url, model: "claude-haiku-4-5" } };
    const client = server.openNotesClient();
    const db = drizzle(client, { schema });
    const { api: user, id } = await api.newUser("default-cap");
    for (let i = 0; i < 6; i++) await user.post("/api/notes", note(i));
    const run = async (cap: number | null) => {
      const now = Date.now();
      const inserted = await client.execute({
        sql: "insert into graph_builds (user_id, mode, status, message, started_at, updated_at, max_llm_calls) values (?, 'incremental', 'building', 'Queued', ?, ?, ?) returning id",
        args: [id, now, now, cap],
      });
      const before = fake.calls;
      await runGraphBuild({ db, settings, signal: new AbortController().signal, attempt: 1, maxAttempts: 1, changes: unheardChanges }, { buildId: Number(inserted.rows[0]!.id), userId: id });
      return fake.calls - before;
    };
    expect(await run(null)).toBe(2);
    expect(await run(3)).toBe(3);
    expect((await user.get("/api/knowledge-graph/status")).body).toMatchObject({ budget_exhausted: true, usage: { llm_calls: 3 } });
    client.close();
  });

  test("caps are validated", async () => {
    const { api: user } = await api.newUser("caps");
    expect((await user.post("/api/knowledge-graph/build", { max_llm_calls: 0 })).status).toBe(400);
    expect((await user.post("/api/knowledge-graph/build", { max_input_tokens: 999 })).status).toBe(400);
  });
});

describe("build history", () => {
  test("every build keeps its record; diffs name what adding, editing and deleting notes changed", async () => {
    const { api: user } = await api.newUser("history");
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await user.post("/api/notes", note(i))).body.id);
    const first = (await build(user)).status;
    const firstRecord = (await user.get(`/api/knowledge-graph/builds/${first.build_id}`)).body;
    expect(firstRecord).toMatchObject({ id: first.build_id, mode: "incremental", status: "completed", extractor: "anthropic", model: "claude-haiku-4-5" });
    expect(firstRecord.changes.nodes_added).toBe(firstRecord.diff.added.length);
    expect(firstRecord.diff.added.map((entry: any) => entry.label)).toEqual(expect.arrayContaining(["Place 0", "Place 1", "Place 2", "Guide 0"]));
    expect(firstRecord.changes.edges_added).toBeGreaterThan(0);

    // Edit one note (a new concept), add one, delete one.
    await user.put(`/api/notes/${ids[0]}`, { ...note(0, " Then [[Harbour]]."), title: "Trip 0" });
    await user.post("/api/notes", note(7));
    expect((await user.delete(`/api/notes/${ids[2]}`)).status).toBe(204);
    // A curation in between recomputes what the deletion touched but leaves its report to the build.
    const guide = label((await user.get("/api/knowledge-graph")).body, "Guide 1");
    expect((await patch(user, `/api/knowledge-graph/nodes/${guide.id}`, { description: "Knows the way." })).status).toBe(200);
    expect((await user.post("/api/knowledge-graph/build", { dry_run: true })).body).toMatchObject({ notes_to_extract: 2, notes_to_remove: 1 });
    const second = await build(user);
    expect(second.calls).toBe(2);
    const record = (await user.get(`/api/knowledge-graph/builds/${second.status.build_id}`)).body;
    expect(record.diff.added.map((entry: any) => entry.label).sort()).toEqual(["Harbour", "Place 7"]);
    // Note 2 alone named Place 2 and Guide 2: its deletion took them out at once, and this build reports it.
    expect(record.diff.removed.map((entry: any) => entry.label).sort()).toEqual(["Guide 2", "Place 2"]);
    expect(record.changes).toMatchObject({ nodes_added: 2, nodes_removed: 2 });
    expect(record.changes.edges_removed).toBeGreaterThan(0);
    for (const entry of record.diff.added) expect(label((await user.get("/api/knowledge-graph")).body, entry.label).id).toBe(entry.id);

    const list = (await user.get("/api/knowledge-graph/builds?page=1&size=1")).body;
    expect(list).toMatchObject({ total: 2, page: 1, size: 1, pages: 2 });
    expect(list.items[0].id).toBe(second.status.build_id);
    expect(list.items[0]).not.toHaveProperty("diff");
    expect((await user.get("/api/knowledge-graph/builds?page=2&size=1")).body.items[0].id).toBe(first.build_id);
    expect((await user.get("/api/knowledge-graph/builds?page=3&size=1")).body).toMatchObject({ items: [], total: 2 });
  });
});

describe("curation", () => {
  let user: Api;
  let other: Api;
  beforeAll(async () => {
    user = (await api.newUser("curator")).api;
    other = (await api.newUser("intruder")).api;
    await user.post("/api/notes", { title: "A", content: "Read about [[Memex]] and [[Vannevar Bush]].", tags: [] });
    await user.post("/api/notes", { title: "B", content: "The [[memex machine]] and [[Hypertext]].", tags: [] });
    await user.post("/api/notes", { title: "C", content: "[[Hypertext]] came from [[Ted Nelson]].", tags: [] });
    await build(user);
  });

  test("a rename, retype and description survive a full rebuild; the old label stays as an alias", async () => {
    const memex = label((await user.get("/api/knowledge-graph")).body, "Memex");
    const renamed = await patch(user, `/api/knowledge-graph/nodes/${memex.id}`, { label: "The Memex", type: "work", description: "Bush's desk." });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: memex.id, label: "The Memex", type: "work", description: "Bush's desk.", aliases: ["Memex"] });
    await build(user, { mode: "full" });
    const after = label((await user.get("/api/knowledge-graph")).body, "The Memex");
    expect(after).toMatchObject({ type: "work", description: "Bush's desk.", aliases: ["Memex"] });
    expect((await user.get("/api/knowledge-graph?q=memex")).body.nodes.map((node: any) => node.label)).toEqual(expect.arrayContaining(["The Memex"]));
  });

  test("a merge unites note_ids and edges, the merged labels become aliases, and a full rebuild keeps it", async () => {
    const graph = (await user.get("/api/knowledge-graph")).body;
    const memex = label(graph, "The Memex");
    const machine = label(graph, "memex machine");
    const merged = await user.post(`/api/knowledge-graph/nodes/${memex.id}/merge`, { ids: [machine.id] });
    expect(merged).toMatchObject({ status: 200, body: { id: memex.id } });
    const check = async () => {
      const now = (await user.get("/api/knowledge-graph")).body;
      expect(label(now, "memex machine")).toBeUndefined();
      const survivor = label(now, "The Memex");
      expect(survivor.note_ids).toEqual([...new Set([...memex.note_ids, ...machine.note_ids])].sort((a, b) => a - b));
      expect(survivor.aliases).toEqual(expect.arrayContaining(["Memex", "memex machine"]));
      const hypertext = label(now, "Hypertext");
      expect(now.edges.some((edge: any) => [edge.source, edge.target].includes(survivor.id) && [edge.source, edge.target].includes(hypertext.id))).toBe(true);
      return survivor;
    };
    await check();
    const { calls } = await build(user, { mode: "full" });
    expect(calls).toBe(3);
    expect((await check()).id).toBeGreaterThan(0);
    await build(user);
    await check();
  });

  test("a hidden node and its edges leave graph reads unless include_hidden=true; it stays hidden after a full rebuild", async () => {
    const graph = (await user.get("/api/knowledge-graph")).body;
    const nelson = label(graph, "Ted Nelson");
    expect((await patch(user, `/api/knowledge-graph/nodes/${nelson.id}`, { hidden: true })).status).toBe(200);
    await build(user, { mode: "full" });
    const visible = (await user.get("/api/knowledge-graph")).body;
    expect(label(visible, "Ted Nelson")).toBeUndefined();
    const hiddenId = label((await user.get("/api/knowledge-graph?include_hidden=true")).body, "Ted Nelson").id;
    expect(visible.edges.some((edge: any) => edge.source === hiddenId || edge.target === hiddenId)).toBe(false);
    expect(visible.stats.total_nodes).toBe(visible.nodes.length);
    const all = (await user.get("/api/knowledge-graph?include_hidden=true")).body;
    expect(all.nodes.length).toBe(visible.nodes.length + 1);
    expect(all.edges.some((edge: any) => edge.source === hiddenId || edge.target === hiddenId)).toBe(true);
    // Totals count what each read can show: the hidden node's edges only with include_hidden.
    expect(visible.stats.total_edges).toBe(visible.edges.length);
    expect(all.stats.total_edges).toBe(all.edges.length);
    expect(all.stats.total_edges).toBeGreaterThan(visible.stats.total_edges);
    expect((await user.get("/api/knowledge-graph?include_hidden=false")).body.nodes.length).toBe(visible.nodes.length);
  });

  test("q finds concepts by label or alias, NFKC and case-insensitively", async () => {
    const byAlias = (await user.get(`/api/knowledge-graph?q=${encodeURIComponent("ＭＥＭＥＸ machine")}`)).body;
    expect(byAlias.nodes.map((node: any) => node.label)).toEqual(["The Memex"]);
    expect((await user.get("/api/knowledge-graph?q=hyper")).body.nodes.map((node: any) => node.label)).toEqual(["Hypertext"]);
    expect((await user.get("/api/knowledge-graph?q=nothing-like-it")).body.nodes).toEqual([]);
  });

  test("another user's node and build ids are 404s, and nothing changes", async () => {
    const graph = (await user.get("/api/knowledge-graph?include_hidden=true")).body;
    const [a, b] = graph.nodes;
    const mine = (await other.post("/api/notes", { title: "X", content: "[[Zed]]", tags: [] })).body;
    await build(other);
    const own = (await other.get("/api/knowledge-graph")).body.nodes[0];
    expect((await patch(other, `/api/knowledge-graph/nodes/${a.id}`, { label: "Mine now" })).status).toBe(404);
    expect((await other.post(`/api/knowledge-graph/nodes/${a.id}/merge`, { ids: [own.id] })).status).toBe(404);
    expect((await other.post(`/api/knowledge-graph/nodes/${own.id}/merge`, { ids: [a.id] })).status).toBe(404);
    expect((await user.post(`/api/knowledge-graph/nodes/${a.id}/merge`, { ids: [b.id, own.id] })).status).toBe(404);
    const status = (await user.get("/api/knowledge-graph/status")).body;
    expect((await other.get(`/api/knowledge-graph/builds/${status.build_id}`)).status).toBe(404);
    expect((await other.get("/api/knowledge-graph/builds")).body.items.map((item: any) => item.id)).not.toContain(status.build_id);
    expect((await user.get("/api/knowledge-graph?include_hidden=true")).body).toEqual(graph);
    expect((await other.get("/api/knowledge-graph")).body.nodes.map((node: any) => node.id)).toEqual([own.id]);
    expect(mine.id).toBeGreaterThan(0);
  });

  test("bad curation input is a 400", async () => {
    const node = (await user.get("/api/knowledge-graph")).body.nodes[0];
    expect((await patch(user, `/api/knowledge-graph/nodes/${node.id}`, {})).status).toBe(400);
    expect((await patch(user, `/api/knowledge-graph/nodes/${node.id}`, { label: "  " })).status).toBe(400);
    expect((await user.post(`/api/knowledge-graph/nodes/${node.id}/merge`, { ids: [node.id] })).status).toBe(400);
    expect((await user.post(`/api/knowledge-graph/nodes/${node.id}/merge`, { ids: [] })).status).toBe(400);
  });
});

describe("an incremental build killed mid-way", () => {
  test("resumed, it leaves the same graph as one that was not interrupted", async () => {
    const { runGraphBuild } = await import("../../src/modules/graph/build-graph");
    const settings = { extractor: "anthropic" as const, llmConcurrency: 1, anthropic: { apiKey: "test-key", baseURL: fake.url, model: "claude-haiku-4-5" } };
    const client = server.openNotesClient();
    const db = drizzle(client, { schema });
    const users = await Promise.all([api.newUser("killed"), api.newUser("steady")]);
    for (const { api: user } of users) {
      for (let i = 0; i < 4; i++) await user.post("/api/notes", note(i));
      await build(user);
      for (let i = 4; i < 10; i++) await user.post("/api/notes", note(i, " Also [[Harbour]]."));
    }
    const record = async (userId: number) => {
      const now = Date.now();
      const inserted = await client.execute({
        sql: "insert into graph_builds (user_id, mode, status, message, started_at, updated_at) values (?, 'incremental', 'building', 'Queued', ?, ?) returning id",
        args: [userId, now, now],
      });
      return Number(inserted.rows[0]!.id);
    };

    const killed = users[0]!;
    const buildId = await record(killed.id);
    const before = fake.calls;
    const controller = new AbortController();
    // The worker "dies" as the build's third call arrives: two notes done, the third's answer never read.
    fake.onRequest((call) => call - before === 3 && controller.abort(new Error("worker stopped")));
    const cut = await runGraphBuild({ db, settings, signal: controller.signal, attempt: 1, maxAttempts: 3, changes: unheardChanges }, { buildId, userId: killed.id })
      .catch((error: unknown) => error)
      .finally(() => fake.onRequest(undefined));
    expect(cut).toBeInstanceOf(Error);
    expect(fake.calls - before).toBe(3);
    await runGraphBuild({ db, settings, signal: new AbortController().signal, attempt: 2, maxAttempts: 3, changes: unheardChanges }, { buildId, userId: killed.id });

    const steady = users[1]!;
    await runGraphBuild({ db, settings, signal: new AbortController().signal, attempt: 1, maxAttempts: 3, changes: unheardChanges }, { buildId: await record(steady.id), userId: steady.id });

    const shape = async (userId: number) => {
      // Stats count types, which the fake gives by what the prompt offered (it differs after a resume): compared through the fields they yield.
      const snapshot = { ...(await graphSnapshot(db, userId)), nodes: (await graphSnapshot(db, userId)).nodes.map(({ stats: _stats, ...node }) => node) };
      // The two users' notes differ only in their ids: compare by position.
      const notes = (await client.execute({ sql: "select id from notes where user_id = ? order by id", args: [userId] })).rows.map((row) => Number(row.id));
      return JSON.parse(JSON.stringify(snapshot), (key, value) =>
        key === "note_ids" ? (value as number[]).map((id) => notes.indexOf(id)) : key === "mentions" ? (value as string[]).map((m) => m.replace(/@(\d+):/, (_, id) => `@${notes.indexOf(Number(id))}:`)).sort() : value,
      );
    };
    expect(await shape(killed.id)).toEqual(await shape(steady.id));
    const status = (await killed.api.get("/api/knowledge-graph/status")).body;
    expect(status).toMatchObject({ status: "completed", notes_total: 6, notes_processed: 6 });
    client.close();
  });
});
