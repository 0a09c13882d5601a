import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { drizzle } from "drizzle-orm/libsql";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, resultFromTaskOutcome, type RawClientDispatch } from "@modelcontextprotocol/ext-tasks/client";
import { CancelTaskResultV2Schema, CreateTaskResultV2Schema, GetTaskResultV2Schema } from "@modelcontextprotocol/ext-tasks/core/v2";
import * as schema from "../../src/db/schema";
import type { Caller } from "../../src/mcp/caller";
import { startToolTask } from "../../src/mcp/tasks/start-task";
import { cancelTask, getTask } from "../../src/mcp/tasks/task-requests";
import { runImportTask } from "../../src/modules/imports/run-import";
import { ALL_SCOPES, createAccessToken } from "../support/access-tokens";
import { Api } from "../support/api";
import { unheardChanges } from "../support/changes";
import { serverForThisFile, startTestServer, type TestServer } from "../support/server";
import { until } from "../support/until";

// The Tasks extension (io.modelcontextprotocol/tasks, MCP 2026-07-28) on /mcp: the extension's own
// client (@modelcontextprotocol/ext-tasks over the v2 client SDK) from the call to the result, and
// raw 2026-07-28 requests for each rule of the extension. Imports carry pasted content, so nothing
// is fetched; the graph and ask run on the local extractor (no LLM).

const REVISION = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
const PAGE = "<html><head><title>Pasted as a task</title></head><body><article><p>A pasted article about anchoring and estimates, long enough to be read as the page's main text by the importer.</p></article></body></html>";

const { server, api } = await serverForThisFile();
const { api: alice } = await api.newUser("taskalice");
const { api: bob } = await api.newUser("taskbob");
let aliceToken: string;
let bobToken: string;

beforeAll(async () => {
  await alice.post("/api/notes", { title: "Anchoring effect", content: "The **anchoring effect** biases estimates toward a first number. See Kahneman.", tags: ["psychology"] });
  aliceToken = await createAccessToken(alice, ALL_SCOPES);
  bobToken = await createAccessToken(bob, ALL_SCOPES);
});

const envelope = (capabilities: Record<string, unknown>) => ({
  "io.modelcontextprotocol/protocolVersion": REVISION,
  "io.modelcontextprotocol/clientCapabilities": capabilities,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
});
const WITH_TASKS = envelope({ extensions: { [TASKS]: {} } });
const WITHOUT_TASKS = envelope({});

let nextId = 1;
/** A raw 2026-07-28 POST with the headers that revision asks for (`Mcp-Name` from the tool's name or the task id). */
async function modern(url: string, token: string, method: string, params: Record<string, unknown>, meta: Record<string, unknown> = WITH_TASKS) {
  const name = (params.name ?? params.taskId) as string | undefined;
  const response = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": REVISION,
      "mcp-method": method,
      ...(name !== undefined && { "mcp-name": name }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: meta } }),
  });
  return (await response.json()) as { result?: any; error?: { code: number; message: string; data?: any } };
}

const callTool = (token: string, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>, url = server.url) => modern(url, token, "tools/call", { name, arguments: args }, meta);
const taskRequest = (token: string, method: string, taskId: string, meta?: Record<string, unknown>, url = server.url) => modern(url, token, method, { taskId }, meta);

/** A tool call answered with a task: the extension's CreateTaskResult, nothing more. */
async function startTask(name: string, args: Record<string, unknown>, { token = aliceToken, url = server.url } = {}) {
  const { result, error } = await callTool(token, name, args, WITH_TASKS, url);
  expect(error).toBeUndefined();
  expect(result.resultType).toBe("task");
  CreateTaskResultV2Schema.parse(result);
  return result as { taskId: string; status: string; statusMessage?: string; ttlMs: number; pollIntervalMs: number };
}

/** tasks/get until the task ends; every answer is the extension's GetTaskResult. */
function settle(taskId: string, { token = aliceToken, url = server.url } = {}) {
  return until(
    async () => {
      const { result, error } = await taskRequest(token, "tasks/get", taskId, WITH_TASKS, url);
      expect(error).toBeUndefined();
      GetTaskResultV2Schema.parse(result);
      expect(result.resultType).toBe("complete");
      return result;
    },
    { timeoutMs: 30_000, what: `task ${taskId} to end`, done: (task) => task.status !== "working" },
  );
}

describe("the extension's own client, from the call to the result", () => {
  test("server/discover names the extension, and an import runs as a task to the finished import", async () => {
    const client = new Client({ name: "ext-tasks-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: REVISION } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${aliceToken}` } } }));
    expect(client.getServerCapabilities()?.extensions?.[TASKS]).toEqual({});
    // The extension's client frames each request (its _meta declares the extension); this only carries it, with the 2026 headers.
    const rawDispatch: RawClientDispatch = async (request) => {
      const { method, params } = request as { method: string; params: Record<string, unknown> };
      const { result, error } = await modern(server.url, aliceToken, method, params, params._meta as Record<string, unknown>);
      return error ? { kind: "error", error } : { kind: "result", result };
    };
    const session = createTaskSessionFromClient(client, {
      endpointId: "rhizome-test",
      rawDispatch,
      v2RequestFraming: { protocolVersion: REVISION, clientInfo: { name: "ext-tasks-test", version: "1.0.0" }, clientCapabilities: {} },
    });
    try {
      const execution = await session.callTool("import", { platform: "web", content: PAGE });
      expect(execution.kind).toBe("task");
      const { outcome } = await execution.settle();
      const result = resultFromTaskOutcome(outcome) as CallToolResult;
      const task = result.structuredContent as { id: number; status: string; note_id: number };
      expect(task.status).toBe("completed");
      expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(task);
      // The same import task the REST API shows, and its note.
      expect((await alice.get(`/api/tasks/${task.id}`)).body).toMatchObject({ status: "completed", note_id: task.note_id });
      expect((await alice.get(`/api/notes/${task.note_id}`)).body.title).toBe("Pasted as a task");
    } finally {
      await session.close();
      await client.close();
    }
  });
});

describe("tools as tasks over raw 2026-07-28 requests", () => {
  test("import: a task at once, working with the record's message, then the import tool's result", async () => {
    const created = await startTask("import", { platform: "web", content: PAGE });
    expect(created).toMatchObject({ ttlMs: 24 * 60 * 60_000, pollIntervalMs: 2_000 });
    // The seed state is the record's at that instant: usually still queued, but the worker may be quicker.
    expect(["working", "completed"]).toContain(created.status);
    if (created.status === "working") expect(["Queued", "Reading the pasted content", "Saving the note"]).toContain(created.statusMessage!);
    expect(created.taskId).toMatch(/^[0-9a-f-]{36}$/);
    const done = await settle(created.taskId);
    expect(done).toMatchObject({ taskId: created.taskId, status: "completed", statusMessage: expect.stringMatching(/^(Imported|Already imported)/) });
    expect(done.result.resultType).toBe("complete");
    expect(done.result.isError).toBeUndefined();
    const record = done.result.structuredContent;
    expect(record).toMatchObject({ status: "completed", note_id: expect.any(Number) });
    expect(JSON.parse(done.result.content[0].text)).toEqual(record);
    // What get_task says of the same record, field for field.
    const { result: seen } = await callTool(aliceToken, "get_task", { id: record.id }, WITHOUT_TASKS);
    expect(seen.structuredContent).toEqual(record);
  });

  test("an import that fails completes as a tool error saying why, with the failed record", async () => {
    const created = await startTask("import", { platform: "web", content: "x".repeat(1024 * 1024 + 10) });
    const done = await settle(created.taskId);
    expect(done.status).toBe("completed");
    expect(done.result.isError).toBe(true);
    expect(done.result.structuredContent).toMatchObject({ status: "failed", note_id: null });
    expect(done.result.content[0].text).toBe(done.result.structuredContent.error);
    expect(done.statusMessage).toBe(done.result.structuredContent.error);
  });

  test("build_graph: a task following the build it started, ending with that build's status; a dry run answers at once", async () => {
    const estimate = await callTool(aliceToken, "build_graph", { dry_run: true });
    expect(estimate.result.resultType).toBe("complete");
    expect(estimate.result.structuredContent.estimated_llm_calls).toBe(0);
    const created = await startTask("build_graph", { mode: "full" });
    expect(created.pollIntervalMs).toBe(5_000);
    const done = await settle(created.taskId);
    expect(done.status).toBe("completed");
    expect(done.result.structuredContent).toMatchObject({ status: "completed", mode: "full" });
    expect((await alice.get("/api/knowledge-graph/status")).body.build_id).toBe(done.result.structuredContent.build_id);
    // A second build while none runs is another task; a refusal (bad input) is the tool's own answer.
    const refused = await callTool(aliceToken, "build_graph", { mode: "sideways" });
    expect(refused.result).toMatchObject({ resultType: "complete", isError: true });
  });

  test("ask: answered in the background into the task, the same answer the tool gives", async () => {
    const created = await startTask("ask", { question: "What is the anchoring effect?" });
    expect(created).toMatchObject({ ttlMs: 60 * 60_000, pollIntervalMs: 1_000 });
    const done = await settle(created.taskId);
    expect(done.status).toBe("completed");
    const direct = await callTool(aliceToken, "ask", { question: "What is the anchoring effect?" }, WITHOUT_TASKS);
    expect(direct.result.resultType).toBe("complete");
    expect(done.result.structuredContent).toEqual(direct.result.structuredContent);
    expect(done.result.structuredContent.passages.length).toBeGreaterThan(0);
    // An ask the tool would refuse at once is answered at once.
    const empty = await callTool(aliceToken, "ask", { question: "" });
    expect(empty.result).toMatchObject({ resultType: "complete", isError: true });
  });

  test("a client without the extension gets today's answers from all three", async () => {
    const imported = await callTool(aliceToken, "import", { platform: "web", content: PAGE }, WITHOUT_TASKS);
    expect(imported.result).toMatchObject({ resultType: "complete", structuredContent: { status: "pending" } });
    const asked = await callTool(aliceToken, "ask", { question: "anchoring" }, WITHOUT_TASKS);
    expect(asked.result.resultType).toBe("complete");
    expect(asked.result.structuredContent.question).toBe("anchoring");
    // And so does every other tool for a client with it: only the three become tasks.
    const whoami = await callTool(aliceToken, "whoami", {});
    expect(whoami.result.resultType).toBe("complete");
    // A 2025-era client (initialize, no per-request capabilities) likewise.
    const legacy = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${aliceToken}`, "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "import", arguments: { platform: "web", content: PAGE } } }),
    });
    expect(((await legacy.json()) as any).result.structuredContent.status).toBe("pending");
  });

  test("a task request names its task in the Mcp-Name header too, or is refused (-32020)", async () => {
    const { taskId } = await startTask("ask", { question: "anchoring" });
    const response = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${aliceToken}`, "mcp-protocol-version": REVISION, "mcp-method": "tasks/get" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { taskId, _meta: WITH_TASKS } }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.code).toBe(-32020);
  });
});

describe("the extension's rules", () => {
  test("tasks/get, tasks/cancel and tasks/update need the extension declared on that request (-32021)", async () => {
    const { taskId } = await startTask("ask", { question: "anchoring" });
    for (const method of ["tasks/get", "tasks/cancel"]) {
      const { error } = await taskRequest(aliceToken, method, taskId, WITHOUT_TASKS);
      expect(error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } });
    }
    const update = await modern(server.url, aliceToken, "tasks/update", { taskId, inputResponses: {} }, WITHOUT_TASKS);
    expect(update.error?.code).toBe(-32021);
  });

  test("an unknown task id is invalid params; tasks/list and tasks/result are not methods of this revision", async () => {
    for (const method of ["tasks/get", "tasks/cancel"]) {
      const { error } = await taskRequest(aliceToken, method, crypto.randomUUID());
      expect(error?.code).toBe(-32602);
      expect(error?.message).toContain("Task not found");
    }
    const listed = await modern(server.url, aliceToken, "tasks/list", {});
    expect(listed.error?.code).toBe(-32601);
    const { taskId } = await startTask("ask", { question: "anchoring" });
    const result = await taskRequest(aliceToken, "tasks/result", taskId);
    expect(result.error?.code).toBe(-32601);
  });

  test("tasks/update is acknowledged (nothing here waits for input); cancelling a finished task is acknowledged and changes nothing", async () => {
    const { taskId } = await startTask("import", { platform: "web", content: PAGE });
    const done = await settle(taskId);
    const update = await modern(server.url, aliceToken, "tasks/update", { taskId, inputResponses: {} });
    expect(update.result).toEqual({ resultType: "complete", _meta: expect.any(Object) });
    const cancelled = await taskRequest(aliceToken, "tasks/cancel", taskId);
    CancelTaskResultV2Schema.parse(cancelled.result);
    expect(cancelled.result.resultType).toBe("complete");
    expect((await settle(taskId)).status).toBe(done.status);
  });

  test("another user's token neither sees nor cancels a task; a token without the tool's scope cannot follow it", async () => {
    const { taskId } = await startTask("ask", { question: "anchoring" });
    for (const method of ["tasks/get", "tasks/cancel"]) {
      const { error } = await taskRequest(bobToken, method, taskId);
      expect(error?.code).toBe(-32602);
      expect(error?.message).toContain("Task not found");
    }
    expect((await settle(taskId)).status).toBe("completed");
    const notesOnly = await createAccessToken(alice, ["notes:read"]);
    const { error } = await taskRequest(notesOnly, "tasks/get", taskId);
    expect(error?.message).toContain("lacks the scope ask");
  });

  test("an expired task is gone", async () => {
    const { taskId } = await startTask("ask", { question: "anchoring" });
    await settle(taskId);
    const db = server.openNotesClient();
    try {
      await db.execute({ sql: "update mcp_tasks set expires_at = ? where id = ?", args: [Date.now() - 1, taskId] });
    } finally {
      db.close();
    }
    expect((await taskRequest(aliceToken, "tasks/get", taskId)).error?.message).toContain("Task has expired");
    expect((await taskRequest(aliceToken, "tasks/get", taskId)).error?.message).toContain("Task not found");
  });
});

/** The keys of a task's answer that belong to the extension's first version, to the multi-round-trip results, or to tasks/get alone. */
const FOREIGN_TO_CREATE = ["task", "result", "error", "inputRequests", "requestState", "ttl", "pollInterval"];
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
/** What a tasks/cancel or tasks/update acknowledgement must not carry: it is an empty result, not a task. */
const TASK_FIELDS = ["taskId", "status", "result", "error", "inputRequests"];

// The conformance suite's tasks-* scenarios check these on the reference server's fixture tools
// (scripts/conformance/mcp-extensions.yml lists those checks); here they are checked on Rhizome's own.
describe("what the conformance suite's tasks scenarios check, on Rhizome's tools", () => {
  test("a task's first answer is flat (Result & Task): its own fields only, ISO timestamps, integer milliseconds; tasks/get finds it at once", async () => {
    const created = (await callTool(aliceToken, "import", { platform: "web", content: PAGE })).result;
    expect(created.resultType).toBe("task");
    for (const key of FOREIGN_TO_CREATE) expect(Object.keys(created)).not.toContain(key);
    expect(created.createdAt).toMatch(ISO_8601);
    expect(created.lastUpdatedAt).toMatch(ISO_8601);
    expect(Number.isInteger(created.ttlMs) && created.ttlMs > 0).toBe(true);
    expect(Number.isInteger(created.pollIntervalMs) && created.pollIntervalMs > 0).toBe(true);
    // Durably created before the answer: no wait between the two.
    const { result: seen } = await taskRequest(aliceToken, "tasks/get", created.taskId);
    expect(seen).toMatchObject({ resultType: "complete", taskId: created.taskId, createdAt: created.createdAt, ttlMs: created.ttlMs });
    expect(Object.keys(seen)).not.toContain("requestState");
    // Done, it inlines the tool's result: content, and no related-task _meta (the task id is at the root).
    const done = await settle(created.taskId);
    expect(done.result.content.length).toBeGreaterThan(0);
    expect(done.result._meta?.["io.modelcontextprotocol/related-task"]).toBeUndefined();
    for (const key of ["requestState", "error", "inputRequests"]) expect(Object.keys(done)).not.toContain(key);
    // Still there after it ended, well within its TTL.
    await Bun.sleep(500);
    expect((await taskRequest(aliceToken, "tasks/get", created.taskId)).result.taskId).toBe(created.taskId);
  });

  test("tasks/cancel and tasks/update answer an empty acknowledgement, right after the task starts and once it has ended", async () => {
    const { taskId } = await startTask("ask", { question: "anchoring" });
    const early = (await taskRequest(aliceToken, "tasks/cancel", taskId)).result;
    await settle(taskId);
    const late = (await taskRequest(aliceToken, "tasks/cancel", taskId)).result;
    // Responses to requests never made (an unknown key) are ignored, as the extension says.
    const update = (await modern(server.url, aliceToken, "tasks/update", { taskId, inputResponses: { "unknown-key": { ignored: true } } })).result;
    for (const ack of [early, late, update]) {
      expect(ack.resultType).toBe("complete");
      for (const key of TASK_FIELDS) expect(Object.keys(ack)).not.toContain(key);
    }
  });

  test("a version 1 `task` hint on tools/call is ignored: it neither makes a task of another tool nor one for a client without the extension", async () => {
    const hint = { ttl: 60_000, pollInterval: 100 };
    const whoami = await modern(server.url, aliceToken, "tools/call", { name: "whoami", arguments: {}, task: hint });
    expect(whoami.result).toMatchObject({ resultType: "complete", structuredContent: { username: expect.stringContaining("taskalice") } });
    expect(whoami.result.taskId).toBeUndefined();
    const imported = await modern(server.url, aliceToken, "tools/call", { name: "import", arguments: { platform: "web", content: PAGE }, task: hint }, WITHOUT_TASKS);
    expect(imported.result).toMatchObject({ resultType: "complete", structuredContent: { status: "pending" } });
    expect(imported.result.taskId).toBeUndefined();
  });

  test("an Mcp-Name header that names another task than the body's is refused (-32020)", async () => {
    const { taskId } = await startTask("ask", { question: "anchoring" });
    const response = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${aliceToken}`, "mcp-protocol-version": REVISION, "mcp-method": "tasks/get", "mcp-name": crypto.randomUUID() },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { taskId, _meta: WITH_TASKS } }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.code).toBe(-32020);
  });
});

describe("task status notifications (subscriptions/listen)", () => {
  /** A subscriptions/listen, read until its answer (the SDK acknowledges on an event stream, then answers). */
  async function listen(notifications: Record<string, unknown>, meta: Record<string, unknown>) {
    const response = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${aliceToken}`, "mcp-protocol-version": REVISION, "mcp-method": "subscriptions/listen" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "subscriptions/listen", params: { notifications, _meta: meta } }),
    });
    if (!response.headers.get("content-type")?.startsWith("text/event-stream")) return { status: response.status, messages: [(await response.json()) as any] };
    const reader = response.body!.getReader();
    let text = "";
    while (!/"id":7/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    return { status: response.status, messages: [...text.matchAll(/^data: (.*)$/gm)].map((match) => JSON.parse(match[1]!)) };
  }

  test("asking for a task's notifications without declaring the extension is refused (-32021, naming it)", async () => {
    const { taskId } = await startTask("ask", { question: "anchoring" });
    const refused = await listen({ taskIds: [taskId] }, WITHOUT_TASKS);
    expect(refused.status).toBe(400);
    expect(refused.messages[0]).toMatchObject({ id: 7, error: { code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } } });
  });

  test("with the extension declared it is acknowledged, with no task ids: tasks here are polled; a listen for nothing of tasks is not refused", async () => {
    const { taskId } = await startTask("ask", { question: "anchoring" });
    for (const [notifications, meta] of [[{ taskIds: [taskId] }, WITH_TASKS], [{}, WITHOUT_TASKS]] as const) {
      const { status, messages } = await listen(notifications, meta);
      expect(status).toBe(200);
      const acknowledged = messages.find((message) => message.method === "notifications/subscriptions/acknowledged");
      expect(acknowledged.params.notifications.taskIds ?? []).toEqual([]);
      expect(messages.find((message) => message.id === 7).result.resultType).toBe("complete");
    }
  });
});

describe("cancellation, with no worker running the imports (ROLE=api)", () => {
  let apiOnly: TestServer;
  let carol: Api;
  let carolId: number;
  let carolToken: string;
  let daveToken: string;
  beforeAll(async () => {
    apiOnly = await startTestServer({ ROLE: "api" });
    const client = new Api(apiOnly.url);
    const user = await client.newUser("taskcarol");
    carol = user.api;
    carolId = user.id;
    carolToken = await createAccessToken(carol, ALL_SCOPES);
    daveToken = await createAccessToken((await client.newUser("taskdave")).api, ALL_SCOPES);
  });
  afterAll(() => apiOnly.stop());

  /**
   * The import job as a worker runs it, on this server's database. `beforeClaim` runs after the
   * job has read the task and before it claims it; `afterClaim` once it has claimed it (running).
   */
  async function runJob(taskId: number, { beforeClaim, afterClaim }: { beforeClaim?: () => Promise<void>; afterClaim?: () => Promise<void> } = {}) {
    const libsql = apiOnly.openNotesClient();
    const db = drizzle(libsql, { schema });
    // The job's one read of the task, then whatever happens between that read and its claim.
    const racing = Object.create(db, {
      select: {
        value: (...columns: []) => ({
          from: (table: typeof schema.importTasks) => ({
            where: async (condition: never) => {
              const rows = await db.select(...columns).from(table).where(condition);
              await beforeClaim?.();
              return rows;
            },
          }),
        }),
      },
    }) as typeof db;
    // The claim is the job's first change to the task, and the first it publishes.
    let claimed = false;
    const changes = { publish: async () => (claimed ? undefined : ((claimed = true), await afterClaim?.())) };
    const { createImporters } = await import("../../src/modules/imports/platforms");
    try {
      await runImportTask({ db: racing, fetcher: null as never, importers: createImporters({}), signal: new AbortController().signal, attempt: 1, maxAttempts: 4, changes }, { taskId, userId: carolId });
    } finally {
      libsql.close();
    }
  }

  test("a pending import is cancelled: the task says cancelled, the import task failed with error cancelled, and its job makes no note", async () => {
    const created = await startTask("import", { platform: "web", content: PAGE }, { token: carolToken, url: apiOnly.url });
    const { taskId } = created;
    const ack = await taskRequest(carolToken, "tasks/cancel", taskId, WITH_TASKS, apiOnly.url);
    expect(ack.result.resultType).toBe("complete");
    const task = await settle(taskId, { token: carolToken, url: apiOnly.url });
    expect(task).toMatchObject({ status: "cancelled", statusMessage: expect.stringContaining("no note was made") });
    expect(task.result).toBeUndefined();
    const importTasks = (await carol.get("/api/tasks")).body.items;
    expect(importTasks).toHaveLength(1);
    expect(importTasks[0]).toMatchObject({ status: "failed", error: "cancelled", note_id: null });
    // Its job, still queued, runs and finds the task finished.
    await runJob(importTasks[0].id);
    expect((await carol.get(`/api/tasks/${importTasks[0].id}`)).body).toMatchObject({ status: "failed", error: "cancelled" });
    expect((await carol.get("/api/notes")).body.total).toBe(0);
  });

  test("a job that read the task just before it was cancelled claims nothing and makes no note", async () => {
    const { taskId } = await startTask("import", { platform: "web", content: PAGE }, { token: carolToken, url: apiOnly.url });
    const [record] = (await carol.get("/api/tasks?size=1")).body.items;
    expect(record.status).toBe("pending");
    await runJob(record.id, {
      beforeClaim: async () => {
        const ack = await taskRequest(carolToken, "tasks/cancel", taskId, WITH_TASKS, apiOnly.url);
        expect(ack.result.resultType).toBe("complete");
      },
    });
    expect((await settle(taskId, { token: carolToken, url: apiOnly.url })).status).toBe("cancelled");
    expect((await carol.get(`/api/tasks/${record.id}`)).body).toMatchObject({ status: "failed", error: "cancelled", started_at: null });
    expect((await carol.get("/api/notes")).body.total).toBe(0);
  });

  test("another user's token cannot cancel it; a running import is not cancelled", async () => {
    const { taskId } = await startTask("import", { platform: "web", content: PAGE }, { token: carolToken, url: apiOnly.url });
    const refused = await taskRequest(daveToken, "tasks/cancel", taskId, WITH_TASKS, apiOnly.url);
    expect(refused.error?.code).toBe(-32602);
    const [record] = (await carol.get("/api/tasks?size=1")).body.items;
    expect(record.status).toBe("pending");
    // Once its job has claimed it, a cancellation is acknowledged and the import goes on to its note.
    await runJob(record.id, {
      afterClaim: async () => {
        const ack = await taskRequest(carolToken, "tasks/cancel", taskId, WITH_TASKS, apiOnly.url);
        expect(ack.result.resultType).toBe("complete");
        expect((await carol.get(`/api/tasks/${record.id}`)).body.status).toBe("running");
      },
    });
    const done = await settle(taskId, { token: carolToken, url: apiOnly.url });
    expect(done.status).toBe("completed");
    expect(done.result.structuredContent.note_id).toEqual(expect.any(Number));
  });
});

describe("an ask answered in process, held until released", () => {
  /** The caller /mcp's edge would make for a new user, as far as tasks read it, on this server's database. */
  async function inProcessCaller(username: string) {
    const { id } = await api.newUser(username);
    const libsql = server.openNotesClient();
    const caller = { db: drizzle(libsql, { schema }), changes: unheardChanges, authenticated: { user: { id }, credential: { kind: "session" } } } as unknown as Caller;
    return { caller, close: () => libsql.close() };
  }

  test("an ask that fails unexpectedly ends failed with the JSON-RPC error, and no result (a protocol error, not a tool error)", async () => {
    const { caller, close } = await inProcessCaller("taskfrank");
    try {
      const created = (await startToolTask(caller, "ask", { question: "anchoring" }, () => Promise.reject(new Error("the model vanished")))) as { taskId: string };
      const task = await until(() => getTask(caller, created.taskId), { what: "the ask to fail", done: (seen) => seen.status !== "working" });
      expect(task).toMatchObject({ status: "failed", statusMessage: expect.any(String), error: { code: -32603, message: expect.any(String) } });
      expect("result" in task).toBe(false);
    } finally {
      close();
    }
  });

  test("an ask cancelled while it is answered: the task says cancelled, and the answer that comes after is dropped", async () => {
    const { caller, close } = await inProcessCaller("taskerin");
    let release!: (result: CallToolResult) => void;
    const answered = new Promise<CallToolResult>((resolve) => (release = resolve));
    try {
      const created = (await startToolTask(caller, "ask", { question: "anchoring" }, () => answered)) as { taskId: string; status: string };
      expect(created.status).toBe("working");
      expect(await cancelTask(caller, created.taskId)).toEqual({ resultType: "complete" });
      release({ content: [{ type: "text", text: "{}" }], structuredContent: {} });
      await Bun.sleep(50);
      const task = await getTask(caller, created.taskId);
      expect(task).toMatchObject({ status: "cancelled", statusMessage: "Cancelled: the answer is not kept" });
      expect("result" in task).toBe(false);
    } finally {
      close();
    }
  });
});
