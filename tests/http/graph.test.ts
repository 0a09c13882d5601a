import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@libsql/client";
import { Api, expectError } from "../support/api";
import { drizzle } from "drizzle-orm/libsql";
import * as schema from "../../src/db/schema";
import { createJobCatalogue, graphQueueOn } from "../../src/jobs/catalogue";
import { silentLog } from "../../src/jobs/log";
import { createQueue } from "../../src/jobs/queue";
import { graphJobKey } from "../../src/modules/graph/graph-queue";
import { reconcileGraphBuilds } from "../../src/modules/graph/reconcile-builds";
import { defaultRespond, startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic";
import { writeGraph } from "../support/graph-seed";
import { serverForThisFile, startTestServer, type TestServer } from "../support/server";
import { awaitBuild } from "../support/await-build";
import { unheardChanges } from "../support/changes";

const fake = await startFakeAnthropic({ latencyMs: 20 });
afterAll(() => fake.stop());
const { server, api } = await serverForThisFile({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_MODEL: "claude-haiku-4-5" });
const { server: local } = await serverForThisFile();

async function build(client: Api, mode?: "full" | "incremental") {
  const before = fake.calls;
  const started = await client.post("/api/knowledge-graph/build", mode ? { mode } : {});
  expect(started.status).toBe(202);
  const result = await awaitBuild(client);
  return { ...result, started: started.body, calls: fake.calls - before };
}

// The fake model names [[wikilinks]] (and Capitalised Words) as concepts, so these notes say what to expect.
const NOTES = [
  { title: "Learning plan", content: "Study [[Machine Learning]] with [[Andrew Ng]].\n\nThen read about [[Neural Networks]].", tags: ["study"] },
  { title: "Course notes", content: "The course says [[machine learning]] needs [[Linear Algebra]].\n\n[[Gradient Descent]] minimises loss.", tags: ["study"] },
  { title: "Weekend", content: "Visited [[Kyoto]] with [[Hana]].\n\nThe [[Golden Pavilion]] was crowded.", tags: ["travel"] },
];

describe("building with the Anthropic extractor", () => {
  let alice: Api;
  const ids: number[] = [];

  beforeAll(async () => {
    alice = (await api.newUser("grapher")).api;
    for (const note of NOTES) ids.push((await alice.post("/api/notes", note)).body.id);
  });

  test("before any build the status is idle and the graph empty", async () => {
    const status = await alice.get("/api/knowledge-graph/status");
    expect(status.body).toMatchObject({ status: "idle", progress: 0, build_id: null, nodes: 0, edges: 0 });
    expect((await alice.get("/api/knowledge-graph")).body).toMatchObject({ nodes: [], edges: [] });
  });

  test("a full build makes one LLM call per note and reports real progress", async () => {
    const { status, seen, started, calls } = await build(alice, "full");
    expect(started).toMatchObject({ status: "building", mode: "full" });
    expect(calls).toBe(3);
    expect(status).toMatchObject({ status: "completed", progress: 100, mode: "full", notes_total: 3, notes_processed: 3, error: null });
    expect(status.usage.llm_calls).toBe(3);
    expect(status.usage.input_tokens).toBeGreaterThan(0);
    expect(status.usage.output_tokens).toBeGreaterThan(0);
    expect(status.nodes).toBeGreaterThan(3);
    const progress = seen.map((state) => state.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(status.message).toMatch(/^Built \d+ nodes and \d+ edges from 3 notes$/);
  });

  test("the same concept in two notes is one node linked to both, with the passages", async () => {
    const graph = (await alice.get("/api/knowledge-graph")).body;
    const ml = graph.nodes.filter((node: any) => node.label.toLowerCase() === "machine learning");
    expect(ml).toHaveLength(1);
    expect(ml[0].note_ids).toEqual([ids[0], ids[1]]);
    expect(ml[0].weight).toBeGreaterThanOrEqual(2);
    for (const node of graph.nodes) {
      expect(Object.keys(node).sort()).toEqual(["aliases", "community", "degree", "description", "id", "label", "note_ids", "type", "weight"]);
    }
    for (const edge of graph.edges) {
      expect(graph.nodes.some((node: any) => node.id === edge.source)).toBe(true);
      expect(graph.nodes.some((node: any) => node.id === edge.target)).toBe(true);
      expect(edge.note_ids.length).toBeGreaterThan(0);
    }
    const detail = (await alice.get(`/api/knowledge-graph/nodes/${ml[0].id}`)).body;
    expect(detail.node.id).toBe(ml[0].id);
    expect(detail.notes.map((note: any) => note.id).sort()).toEqual([ids[0], ids[1]]);
    for (const note of detail.notes) expect(note.excerpt.toLowerCase()).toContain("machine learning");
  });

  test("limit keeps the heaviest nodes and only the edges among them; node+depth gives a neighbourhood", async () => {
    const all = (await alice.get("/api/knowledge-graph")).body;
    const top = (await alice.get("/api/knowledge-graph?limit=2")).body;
    expect(top.nodes).toHaveLength(2);
    const heaviest = [...all.nodes].sort((a: any, b: any) => b.weight - a.weight || a.id - b.id).slice(0, 2);
    expect(top.nodes.map((node: any) => node.id).sort()).toEqual(heaviest.map((node: any) => node.id).sort());
    const kept = new Set(top.nodes.map((node: any) => node.id));
    for (const edge of top.edges) expect(kept.has(edge.source) && kept.has(edge.target)).toBe(true);

    const kyoto = all.nodes.find((node: any) => node.label === "Kyoto");
    const around = (await alice.get(`/api/knowledge-graph?node=${kyoto.id}&depth=1`)).body;
    expect(around.nodes.map((node: any) => node.id)).toContain(kyoto.id);
    expect(around.nodes.some((node: any) => node.label.toLowerCase() === "machine learning")).toBe(false);
    expectError(await alice.get("/api/knowledge-graph?limit=5001"), 400, "BAD_REQUEST");
    expectError(await alice.get("/api/knowledge-graph?depth=4&node=1"), 400, "BAD_REQUEST");
  });

  test("an incremental build with nothing changed makes no LLM call", async () => {
    const { status, calls } = await build(alice);
    expect(calls).toBe(0);
    expect(status).toMatchObject({ status: "completed", mode: "incremental", notes_total: 0 });
    expect(status.usage.llm_calls).toBe(0);
  });

  test("editing one note re-extracts exactly that note", async () => {
    await alice.put(`/api/notes/${ids[2]}`, { content: "Visited [[Kyoto]] and [[Nara]] with [[Hana]].\n\n[[Linear Algebra]] before [[Gradient Descent]]." });
    const { status, calls } = await build(alice, "incremental");
    expect(calls).toBe(1);
    expect(status).toMatchObject({ notes_total: 1, notes_processed: 1 });
    const labels = (await alice.get("/api/knowledge-graph")).body.nodes.map((node: any) => node.label);
    expect(labels).toContain("Nara");
    expect(labels).not.toContain("Golden Pavilion");
  });

  test("deleting a note takes it out of the graph at once; the next build agrees, with no LLM call", async () => {
    const deleted = ids[2]!;
    const before = (await alice.get("/api/knowledge-graph")).body;
    const label = (id: number) => before.nodes.find((node: any) => node.id === id)?.label;
    const shared = before.edges.filter((edge: any) => edge.note_ids.includes(deleted) && edge.note_ids.length > 1);
    expect(shared.map((edge: any) => [label(edge.source), label(edge.target)])).toContainEqual(["Linear Algebra", "Gradient Descent"]);
    const algebraBefore = before.nodes.find((node: any) => node.label === "Linear Algebra");
    expect(algebraBefore.note_ids).toEqual([ids[1], deleted]);

    expect((await alice.delete(`/api/notes/${deleted}`)).status).toBe(204);
    const now = (await alice.get("/api/knowledge-graph")).body;
    for (const item of [...now.nodes, ...now.edges]) expect(item.note_ids).not.toContain(deleted);
    const labels = now.nodes.map((node: any) => node.label);
    for (const gone of ["Kyoto", "Nara", "Hana"]) expect(labels).not.toContain(gone);
    const algebra = now.nodes.find((node: any) => node.label === "Linear Algebra");
    expect(algebra).toMatchObject({ id: algebraBefore.id, note_ids: [ids[1]] });
    expect(algebra.weight).toBeLessThan(algebraBefore.weight);
    expect(algebra.degree).toBeLessThan(algebraBefore.degree);
    for (const edge of shared) {
      const left = now.edges.find((candidate: any) => candidate.id === edge.id);
      expect(left).toMatchObject({ weight: edge.weight - 1, note_ids: edge.note_ids.filter((id: number) => id !== deleted) });
    }
    const detail = (await alice.get(`/api/knowledge-graph/nodes/${algebra.id}`)).body;
    expect(detail.notes.map((note: any) => note.id)).toEqual([ids[1]]);
    expect(detail.edges.every((edge: any) => !edge.note_ids.includes(deleted))).toBe(true);

    // The build still sees the deletion and, redoing the graph from what is left, lands on the same graph.
    const { status, calls } = await build(alice);
    expect(calls).toBe(0);
    expect(status).toMatchObject({ status: "completed", notes_total: 0 });
    const rebuilt = (await alice.get("/api/knowledge-graph")).body;
    const shape = (graph: any) => ({
      nodes: graph.nodes.map(({ id, label, weight, degree, note_ids }: any) => ({ id, label, weight, degree, note_ids })).sort((a: any, b: any) => a.id - b.id),
      edges: graph.edges.map(({ source, target, label, weight, note_ids }: any) => ({ source, target, label, weight, note_ids })).sort((a: any, b: any) => a.source - b.source || a.target - b.target || (a.label < b.label ? -1 : 1)),
    });
    expect(shape(now)).toEqual(shape(rebuilt));
    expect(labels.map((name: string) => name.toLowerCase())).toContain("machine learning");
  });

  test("node ids survive an incremental build", async () => {
    const before = (await alice.get("/api/knowledge-graph")).body.nodes;
    await alice.post("/api/notes", { title: "More", content: "[[Linear Algebra]] again." });
    await build(alice);
    const after = (await alice.get("/api/knowledge-graph")).body.nodes;
    const id = (nodes: any[], label: string) => nodes.find((node) => node.label === label)?.id;
    expect(id(after, "Linear Algebra")).toBe(id(before, "Linear Algebra"));
  });

  test("a second build while one runs is a 409", async () => {
    const { api: busy } = await api.newUser("busy");
    for (let i = 0; i < 6; i++) await busy.post("/api/notes", { title: `Note ${i}`, content: `About Topic${i} and Paris.` });
    const slowFirst = busy.post("/api/knowledge-graph/build", { mode: "full" });
    const [first, second] = await Promise.all([slowFirst, busy.post("/api/knowledge-graph/build", { mode: "full" })]);
    expect([first.status, second.status].sort()).toEqual([202, 409]);
    expectError([first, second].find((response) => response.status === 409)!, 409, "CONFLICT");
    await awaitBuild(busy);
  });

  test("an overloaded API (529) is retried by the SDK and the build completes", async () => {
    const { api: user } = await api.newUser("overload");
    await user.post("/api/notes", { title: "One", content: "About Berlin." });
    fake.failNext(1, "overloaded");
    const { status, calls } = await build(user, "full");
    expect(status.status).toBe("completed");
    expect(calls).toBe(2);
    expect(status.failed_notes).toEqual([]);
  });

  test("a note whose answer stays malformed after a retry is recorded as failed; the build goes on", async () => {
    // One call in flight, so the two malformed answers are the first note's call and its retry.
    const serial = await startTestServer({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, GRAPH_LLM_CONCURRENCY: "1" });
    const { api: user } = await new Api(serial.url).newUser("malformed");
    const bad = (await user.post("/api/notes", { title: "Bad", content: "About [[Lisbon]]." })).body;
    fake.failNext(2, "malformed_tool_input");
    await user.post("/api/notes", { title: "Good", content: "About [[Madrid]]." });
    const { status } = await build(user, "full");
    expect(status.status).toBe("completed");
    expect(status.failed_notes).toHaveLength(1);
    expect(status.failed_notes[0].note_id).toBe(bad.id);
    expect(status.message).toContain("1 note(s) could not be extracted");
    expect((await user.get("/api/knowledge-graph")).body.nodes.map((node: any) => node.label)).toContain("Madrid");
    await serial.stop();
  });

  test("another user's graph is invisible: their node is a 404 and nothing leaks into the status", async () => {
    const { api: bob } = await api.newUser("bob");
    const aliceNode = (await alice.get("/api/knowledge-graph")).body.nodes[0];
    expectError(await bob.get(`/api/knowledge-graph/nodes/${aliceNode.id}`), 404, "NOT_FOUND");
    expectError(await bob.get(`/api/knowledge-graph?node=${aliceNode.id}`), 404, "NOT_FOUND");
    expect((await bob.get("/api/knowledge-graph")).body.nodes).toEqual([]);
    expect((await bob.get("/api/knowledge-graph/status")).body).toMatchObject({ status: "idle", nodes: 0 });
    expectError(await api.get("/api/knowledge-graph/status"), 401, "UNAUTHORIZED");
    expectError(await alice.post("/api/knowledge-graph/build", { mode: "sideways" }), 400, "BAD_REQUEST");
    expectError(await alice.get("/api/knowledge-graph/nodes/abc"), 400, "BAD_REQUEST");
  });
});

describe("what the model is sent and how its refusals end a build", () => {
  // Marked notes draw Anthropic's own error answers; the rest get the usual deterministic answer.
  const REFUSALS: Record<string, { status: number; error: { type: string; message: string } }> = {
    BREAK400: { status: 400, error: { type: "invalid_request_error", message: "messages.0.content.0.text: this note's request is malformed" } },
    KEY401: { status: 401, error: { type: "authentication_error", message: "invalid x-api-key" } },
    FORBID403: { status: 403, error: { type: "permission_error", message: "Your API key does not have permission to use the specified resource." } },
    MODEL404: { status: 404, error: { type: "not_found_error", message: "model: claude-nonexistent" } },
  };
  let strictFake: FakeAnthropic;
  let serial: TestServer;
  let parallel: TestServer;

  beforeAll(async () => {
    strictFake = await startFakeAnthropic({
      latencyMs: 20,
      respond: (request) => {
        const marker = Object.keys(REFUSALS).find((name) => request.noteText?.includes(name));
        return marker ? REFUSALS[marker]! : defaultRespond(request);
      },
    });
    const environment = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: strictFake.url, ANTHROPIC_MODEL: "claude-haiku-4-5" };
    serial = await startTestServer({ ...environment, GRAPH_LLM_CONCURRENCY: "1" });
    parallel = await startTestServer({ ...environment, GRAPH_LLM_CONCURRENCY: "2" });
  });
  afterAll(async () => {
    await serial.stop();
    await parallel.stop();
    await strictFake.stop();
  });

  async function settle(user: Api, mode: "full" | "incremental" = "full") {
    const before = strictFake.requests.length;
    expect((await user.post("/api/knowledge-graph/build", { mode })).status).toBe(202);
    const { status } = await awaitBuild(user);
    return { status, requests: strictFake.requests.slice(before) };
  }

  test("every note is offered the user's heaviest concepts, then the names found earlier in the build", async () => {
    const { api: user, id } = await new Api(serial.url).newUser("existing");
    const client = serial.openNotesClient();
    // A graph of 200 concepts already (the most a build reads), the heaviest first in the prompt.
    await writeGraph(drizzle(client, { schema }), id, {
      nodes: [
        { label: "Zeppelin", weight: 1000 },
        ...Array.from({ length: 199 }, (_, index) => ({ label: `Seed concept ${index + 1}`, weight: 200 - index })),
      ],
    });
    client.close();
    await user.post("/api/notes", { title: "First", content: "About [[Alpha topic]] and [[Beta method]]." });
    await user.post("/api/notes", { title: "Second", content: "About [[Gamma topic]] and [[Delta method]]." });
    await user.post("/api/notes", { title: "Third", content: "Back to the alpha topic." });
    const { status, requests } = await settle(user, "incremental");
    expect(status.status).toBe("completed");
    expect(requests).toHaveLength(3);
    for (const request of requests) {
      // Names the chunk contains come first; after them, the graph's heaviest in order.
      const rest = request.existingConcepts.filter((name) => !request.noteText!.toLowerCase().includes(name.toLowerCase()));
      expect(rest.slice(0, 2)).toEqual(["Zeppelin", "Seed concept 1"]);
    }
    // A name the build found in an earlier note is offered to a later one that uses it.
    expect(requests[2]!.existingConcepts[0]).toBe("Alpha topic");
  });

  test("a 400 about one note's request is that note's failure; the build completes", async () => {
    const { api: user } = await new Api(parallel.url).newUser("bad-request");
    await user.post("/api/notes", { title: "Fine", content: "About [[Lisbon]]." });
    const bad = (await user.post("/api/notes", { title: "Odd", content: "About [[Porto]]. BREAK400" })).body;
    await user.post("/api/notes", { title: "Also fine", content: "About [[Madrid]]." });
    const { status } = await settle(user);
    expect(status).toMatchObject({ status: "completed", error: null, notes_processed: 3 });
    expect(status.failed_notes).toEqual([
      { note_id: bad.id, error: "the Anthropic API rejected the request (400 invalid_request_error): messages.0.content.0.text: this note's request is malformed" },
    ]);
    const labels = (await user.get("/api/knowledge-graph")).body.nodes.map((node: any) => node.label);
    expect(labels).toEqual(expect.arrayContaining(["Lisbon", "Madrid"]));
    expect(labels).not.toContain("Porto");
  });

  for (const [marker, setting] of [
    ["KEY401", "ANTHROPIC_API_KEY"],
    ["FORBID403", "ANTHROPIC_API_KEY"],
    ["MODEL404", "ANTHROPIC_MODEL"],
  ] as const) {
    test(`a ${REFUSALS[marker]!.status} stops the build at once with a message naming ${setting}`, async () => {
      const { api: user } = await new Api(serial.url).newUser(`refused-${marker.toLowerCase()}`);
      await user.post("/api/notes", { title: "First", content: `About [[Oslo]]. ${marker}` });
      for (let i = 0; i < 3; i++) await user.post("/api/notes", { title: `Later ${i}`, content: `About [[Bergen ${i}]].` });
      const { status, requests } = await settle(user);
      expect(status.status).toBe("failed");
      expect(status.error).toContain(`(${REFUSALS[marker]!.status} ${REFUSALS[marker]!.error.type})`);
      expect(status.error).toContain(setting);
      expect(requests).toHaveLength(1);
    });
  }

  test("with one call allowed, the API never sees two requests at once; with two, never three", async () => {
    for (const [server, limit] of [
      [serial, 1],
      [parallel, 2],
    ] as const) {
      const { api: user } = await new Api(server.url).newUser(`in-flight-${limit}`);
      // Long notes take several calls each, and a malformed answer adds a retry.
      for (let i = 0; i < 5; i++) await user.post("/api/notes", { title: `Long ${i}`, content: `[[Topic ${i}]] ${"word ".repeat(4000)}\n\n[[Other ${i}]] ${"text ".repeat(4000)}` });
      strictFake.reset();
      strictFake.failNext(1, "malformed_tool_input");
      const { status } = await settle(user);
      expect(status.status).toBe("completed");
      expect(strictFake.calls).toBeGreaterThan(10);
      expect(strictFake.maxInFlight).toBeLessThanOrEqual(limit);
    }
  });
});

describe("a build stuck without its job", () => {
  test("is marked failed by the reconciler, so a new build can start; one whose job is still queued is left alone", async () => {
    const stale = Date.now() - 10 * 60_000;
    const insertStaleBuild = async (userId: number) => {
      const db: Client = server.openNotesClient();
      const inserted = await db.execute({
        sql: "insert into graph_builds (user_id, mode, status, message, started_at, updated_at) values (?, 'full', 'building', 'Extracting', ?, ?) returning id",
        args: [userId, stale, stale],
      });
      db.close();
      return Number(inserted.rows[0]!.id);
    };
    const { api: user, id: userId } = await api.newUser("stuck");
    await insertStaleBuild(userId);
    const { api: waiting, id: waitingId } = await api.newUser("waiting");
    const waitingBuild = await insertStaleBuild(waitingId);
    expectError(await user.post("/api/knowledge-graph/build", {}), 409, "CONFLICT");

    const client = server.openNotesClient();
    const db = drizzle(client, { schema });
    const queue = createQueue({
      connectionString: server.databaseUrl,
      tasks: createJobCatalogue({ db, imports: { allowPrivateNetworks: true }, graph: { extractor: "local", llmConcurrency: 1, anthropic: {} }, changes: unheardChanges }),
      log: silentLog,
    });
    try {
      // The second build's job is in the queue, due later: its build must survive.
      const job = await queue.enqueue("graph-build", { buildId: waitingBuild, userId: waitingId }, { jobKey: graphJobKey(waitingId), runAt: new Date(Date.now() + 3_600_000) });
      expect(job).not.toBeNull();
      expect(await reconcileGraphBuilds(db, graphQueueOn(queue), unheardChanges)).toBe(1);
    } finally {
      await queue.close();
      client.close();
    }
    expect((await user.get("/api/knowledge-graph/status")).body).toMatchObject({ status: "failed" });
    expect((await waiting.get("/api/knowledge-graph/status")).body).toMatchObject({ status: "building", build_id: waitingBuild });
    expect((await user.post("/api/knowledge-graph/build", {})).status).toBe(202);
    await awaitBuild(user);
  });
});

describe("the local extractor", () => {
  test("builds a useful graph from English and Chinese notes with no network", async () => {
    const client = new Api(local.url);
    const { api: user } = await client.newUser("local");
    await user.post("/api/notes", {
      title: "Gradient descent",
      content: "# Optimisation\n\n**Gradient descent** updates the weights of a neural network.\nThe learning rate controls the step size of gradient descent.\n\nSee [[Backpropagation]].",
      tags: ["machine-learning"],
    });
    await user.post("/api/notes", {
      title: "深度学习笔记",
      content: "## 神经网络\n\n**神经网络**由多层神经元组成，训练时使用反向传播算法。\n\n神经网络需要大量数据。 #深度学习",
      tags: ["读书笔记"],
    });
    const started = await user.post("/api/knowledge-graph/build", { mode: "full" });
    expect(started.status).toBe(202);
    const { status } = await awaitBuild(user);
    expect(status).toMatchObject({ status: "completed", usage: { llm_calls: 0, input_tokens: 0, output_tokens: 0 } });
    const labels = (await user.get("/api/knowledge-graph")).body.nodes.map((node: any) => node.label.toLowerCase());
    expect(labels).toContain("gradient descent");
    expect(labels).toContain("backpropagation");
    expect(labels).toContain("神经网络");
    expect(labels).toContain("深度学习");
    expect((await user.get("/api/knowledge-graph")).body.edges.length).toBeGreaterThan(0);
  });
});

describe("a build interrupted with its worker", () => {
  test("resumes where it stopped: the next run extracts only the notes not yet done", async () => {
    const { runGraphBuild } = await import("../../src/modules/graph/build-graph");
    const { api: user } = await api.newUser("resume");
    for (let i = 0; i < 6; i++) await user.post("/api/notes", { title: `Resume ${i}`, content: `About [[City ${i}]].` });
    const me = (await user.get("/api/auth/me")).body;
    const client = server.openNotesClient();
    const db = drizzle(client, { schema });
    const now = Date.now();
    const inserted = await client.execute({
      sql: "insert into graph_builds (user_id, mode, status, message, started_at, updated_at) values (?, 'full', 'building', 'Queued', ?, ?) returning id",
      args: [me.id, now, now],
    });
    const buildId = Number(inserted.rows[0]!.id);
    const settings = { extractor: "anthropic" as const, llmConcurrency: 1, anthropic: { apiKey: "test-key", baseURL: fake.url } };

    // The first run is cut off (as a worker's shutdown or death would) as its second note's call arrives:
    // one note done, the second's answer never read.
    const before = fake.calls;
    const controller = new AbortController();
    fake.onRequest((call) => call - before === 2 && controller.abort(new Error("worker stopped")));
    const first = await runGraphBuild({ db, settings, signal: controller.signal, attempt: 1, maxAttempts: 3, changes: unheardChanges }, { buildId, userId: me.id })
      .then(
        () => null,
        (error: unknown) => error,
      )
      .finally(() => fake.onRequest(undefined));
    expect(first).toBeInstanceOf(Error);
    expect(fake.calls - before).toBe(2);
    expect((await user.get("/api/knowledge-graph/status")).body).toMatchObject({ status: "building", notes_processed: 1 });

    const resumedFrom = fake.calls;
    await runGraphBuild({ db, settings, signal: new AbortController().signal, attempt: 2, maxAttempts: 3, changes: unheardChanges }, { buildId, userId: me.id });
    client.close();
    const status = (await user.get("/api/knowledge-graph/status")).body;
    expect(status).toMatchObject({ status: "completed", notes_total: 6, notes_processed: 6 });
    // What the first run finished was not redone: the resumed run asked about the five other notes only.
    expect(fake.calls - resumedFrom).toBe(5);
    expect((await user.get("/api/knowledge-graph")).body.nodes.map((node: any) => node.label)).toContain("City 5");
  });
});

describe("the trash and the graph", () => {
  test("a note restored from the trash comes back into the graph at the next build, extracted once more", async () => {
    const { api: user } = await api.newUser("trash-graph");
    const kept = (await user.post("/api/notes", { title: "Kept", content: "About [[Photosynthesis]] and [[Sunlight]]." })).body;
    const trashed = (await user.post("/api/notes", { title: "Trashed", content: "[[Photosynthesis]] needs [[Chlorophyll]]." })).body;
    expect((await build(user)).calls).toBe(2);
    const nodeOf = (graph: any, label: string) => graph.nodes.find((node: any) => node.label === label);

    expect((await user.delete(`/api/notes/${trashed.id}`)).status).toBe(204);
    const without = (await user.get("/api/knowledge-graph")).body;
    expect(nodeOf(without, "Chlorophyll")).toBeUndefined();
    expect(nodeOf(without, "Photosynthesis").note_ids).toEqual([kept.id]);

    expect((await user.post(`/api/trash/${trashed.id}/restore`)).status).toBe(200);
    const { status, calls } = await build(user);
    expect(status).toMatchObject({ status: "completed" });
    expect(calls).toBe(1);
    const back = (await user.get("/api/knowledge-graph")).body;
    expect(nodeOf(back, "Chlorophyll").note_ids).toEqual([trashed.id]);
    expect(nodeOf(back, "Photosynthesis").note_ids.sort()).toEqual([kept.id, trashed.id].sort());
    expect(nodeOf(back, "Photosynthesis").id).toBe(nodeOf(without, "Photosynthesis").id);
  });
});
