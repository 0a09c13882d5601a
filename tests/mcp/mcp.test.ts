import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { ALL_SCOPES, createAccessToken } from "../support/access-tokens";
import { expectError } from "../support/api";
import { serverForThisFile } from "../support/server";
import { startServiceProcess } from "../support/service-process";
import { awaitBuild } from "../support/await-build";
import { until } from "../support/until";

// Drives /mcp as agents do: the SDK's own Client over its Streamable HTTP transport, on loopback.
// Tool results are checked against each tool's outputSchema with a JSON Schema validator of their
// own (Ajv, draft 2020-12), not the service's Zod schemas.

const ALLOWED_ORIGIN = "https://agent.example.com";
const { server, api } = await serverForThisFile({ MCP_ALLOWED_ORIGINS: ALLOWED_ORIGIN });
const { api: alice } = await api.newUser("mcpalice");
const { api: bob } = await api.newUser("mcpbob");
let aliceToken: string;
let bobNoteId: number;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

beforeAll(async () => {
  await alice.post("/api/notes", { title: "Anchoring effect", content: "# Anchoring\n\nThe **anchoring effect** biases estimates toward a first number. See [[Kahneman]].", tags: ["psychology"] });
  await alice.post("/api/notes", { title: "锚定效应", content: "锚定效应是一种认知偏差：人们过分依赖最先得到的信息。", tags: ["心理学"] });
  await alice.post("/api/notes", { title: "Kahneman", content: "Daniel Kahneman wrote about the anchoring effect and loss aversion." });
  bobNoteId = (await bob.post("/api/notes", { title: "Bob's secret", content: "anchoring secrets of bob" })).body.id;
  aliceToken = await createAccessToken(alice, ALL_SCOPES);
});

async function connect(token: string, url = server.url, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "rhizome-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } } });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A successful result: structured content valid against the tool's own outputSchema, and the same JSON as text. */
function expectValidResult(tool: Tool, result: CallToolResult): any {
  expect(result.isError ?? false).toBe(false);
  const validate = ajv.compile(tool.outputSchema!);
  const valid = validate(result.structuredContent);
  expect({ tool: tool.name, errors: valid ? null : validate.errors }).toEqual({ tool: tool.name, errors: null });
  expect(typeof result.structuredContent).toBe("object");
  expect(Array.isArray(result.structuredContent)).toBe(false);
  const text = result.content.find((part) => part.type === "text") as { text: string };
  expect(JSON.parse(text.text)).toEqual(result.structuredContent);
  return result.structuredContent;
}

function errorText(result: CallToolResult): string {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return (result.content[0] as { text: string }).text;
}

/** A raw JSON-RPC POST to /mcp, for what the SDK client would never send. */
function post(body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${aliceToken}`, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
const INITIALIZE = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };

describe("initialize and tools/list", () => {
  test("the server introduces itself with tools and resources, under both protocol revisions", async () => {
    const client = await connect(aliceToken);
    expect(client.getServerVersion()?.name).toBe("rhizome");
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getServerCapabilities()?.resources).toBeDefined();
    expect(client.getInstructions()).toContain("notes");
    await client.close();
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const response = await post({ ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: version } });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("mcp-session-id")).toBeNull();
      expect(((await response.json()) as any).result.protocolVersion).toBe(version);
    }
  });

  test("a token with every scope sees every tool, each with title, description, object schemas and annotations", async () => {
    const client = await connect(aliceToken);
    const { tools } = await client.listTools();
    await client.close();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ["ask", "build_graph", "create_note", "delete_note", "fetch", "get_concept", "get_note", "get_task", "import", "list_feeds", "list_notes", "list_tags", "list_versions", "related_notes", "restore_version", "search", "search_concepts", "search_notes", "subscribe_feed", "update_note", "whoami"].sort(),
    );
    for (const tool of tools) {
      expect(tool.title?.length).toBeGreaterThan(0);
      expect(tool.description?.length).toBeGreaterThan(10);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
      expect(JSON.stringify(tool.inputSchema)).not.toContain("$ref");
      expect(JSON.stringify(tool.outputSchema)).not.toContain("$ref");
      expect(() => ajv.compile(tool.outputSchema!)).not.toThrow();
      expect(() => ajv.compile(tool.inputSchema)).not.toThrow();
      expect(typeof tool.annotations?.readOnlyHint).toBe("boolean");
      // subscribe_feed fetches the address it is given, as import does.
      expect(tool.annotations?.openWorldHint).toBe(tool.name === "import" || tool.name === "ask");
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ["delete_note", "update_note", "restore_version"]) expect(byName.get(name)!.annotations?.destructiveHint).toBe(true);
    for (const name of ["create_note", "import", "build_graph", "subscribe_feed"]) expect(byName.get(name)!.annotations?.destructiveHint).toBe(false);
    for (const name of ["search_notes", "list_notes", "list_tags", "get_note", "search_concepts", "get_concept", "get_task", "whoami", "search", "fetch", "list_versions", "list_feeds"]) {
      expect(byName.get(name)!.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    }
    expect(byName.get("search_notes")!.inputSchema.required).toEqual(["q"]);
    expect(byName.get("get_note")!.description).toBe("Read a note");
  });

  test("tools/list shows only what the token's scopes allow", async () => {
    const reader = await connect(await createAccessToken(alice, ["notes:read"]));
    expect((await reader.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["fetch", "get_note", "list_notes", "list_tags", "list_versions", "related_notes", "search", "search_notes", "whoami"]);
    await reader.close();
    const graph = await connect(await createAccessToken(alice, ["graph:read", "ask"]));
    expect((await graph.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["ask", "get_concept", "search_concepts", "whoami"]);
    await graph.close();
  });
});

describe("every tool, with good input and bad", () => {
  let client: Client;
  let tools: Map<string, Tool>;
  beforeAll(async () => {
    client = await connect(aliceToken);
    tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
  });
  afterAll(() => client.close());
  const ok = async (name: string, args: Record<string, unknown> = {}) => expectValidResult(tools.get(name)!, await call(client, name, args));

  test("note tools answer exactly what REST answers, with a resource link to the note", async () => {
    const created = await ok("create_note", { title: "From an agent", content: "Written over **MCP**.", tags: ["agents"] });
    expect(created).toMatchObject({ title: "From an agent", content: "Written over **MCP**.", tags: ["agents"], source: null });
    const fetched = await call(client, "get_note", { id: created.id });
    expect(expectValidResult(tools.get("get_note")!, fetched)).toEqual((await alice.get(`/api/notes/${created.id}`)).body);
    expect(fetched.content).toContainEqual({ type: "resource_link", uri: `rhizome://notes/${created.id}`, name: "From an agent", mimeType: "text/markdown" });

    const updated = await ok("update_note", { id: created.id, tags: ["agents", "edited"] });
    expect(updated).toMatchObject({ id: created.id, title: "From an agent", tags: ["agents", "edited"] });
    const versions = await ok("list_versions", { id: created.id });
    expect(versions.items).toEqual([expect.objectContaining({ version: 1, tags: ["agents"], by: { kind: "token", name: expect.any(String) } })]);
    const restored = await ok("restore_version", { id: created.id, version: 1 });
    expect(restored).toMatchObject({ id: created.id, tags: ["agents"] });

    const listed = await ok("list_notes", { tag: "agents" });
    expect(listed).toEqual((await alice.get("/api/notes?tag=agents")).body);
    expect(listed.items.map((item: { id: number }) => item.id)).toEqual([created.id]);
    expect(await ok("list_notes", { tag: "edited" })).toMatchObject({ total: 0 });
    const tagList = await ok("list_tags");
    expect(tagList).toEqual((await alice.get("/api/tags")).body);
    expect(tagList.items).toContainEqual({ tag: "agents", count: 1 });

    expect(await ok("delete_note", { id: created.id })).toEqual({ id: created.id, deleted: true });
    expectError(await alice.get(`/api/notes/${created.id}`), 404, "NOT_FOUND");
  });

  test("search_notes finds notes in English and Chinese, and never another user's", async () => {
    const english = await ok("search_notes", { q: "anchoring" });
    expect(english).toEqual((await alice.get("/api/notes?q=anchoring")).body);
    expect(english.items.map((item: { title: string }) => item.title).sort()).toEqual(["Anchoring effect", "Kahneman"]);
    const chinese = await ok("search_notes", { q: "锚定", size: 5 });
    expect(chinese.items.map((item: { title: string }) => item.title)).toEqual(["锚定效应"]);
    expect(JSON.stringify(english)).not.toContain("Bob");
  });

  test("whoami, import and get_task, ask (nulls without an LLM), build_graph and the concept tools", async () => {
    expect((await ok("whoami")).username).toMatch(/^mcpalice_/);

    const task = await ok("import", { platform: "web", content: "<html><head><title>Pasted page</title></head><body><article><p>A pasted article about anchoring and estimates, long enough to be read as the page's main text by the importer.</p></article></body></html>" });
    expect(task).toMatchObject({ platform: "web", status: "pending" });
    const seen = await ok("get_task", { id: task.id });
    expect(seen.id).toBe(task.id);

    const answer = await ok("ask", { question: "What is the anchoring effect?" });
    expect(answer.answer).toBeNull();
    expect(answer.passages.length).toBeGreaterThan(0);

    const estimate = await ok("build_graph", { dry_run: true });
    expect(estimate).toHaveProperty("notes_to_extract");
    const started = await ok("build_graph", { mode: "full" });
    expect(["building", "completed"]).toContain(started.status);
    expect((await awaitBuild(alice)).status.status).toBe("completed");

    const concepts = await ok("search_concepts", { q: "anchoring", limit: 5 });
    expect(concepts.nodes.length).toBeGreaterThan(0);
    const concept = await ok("get_concept", { id: concepts.nodes[0].id });
    expect(concept.node.id).toBe(concepts.nodes[0].id);
    expect(concept).toEqual((await alice.get(`/api/knowledge-graph/nodes/${concepts.nodes[0].id}`)).body);
  });

  test("list_feeds and subscribe_feed: the feeds operations, their answers and refusals", async () => {
    const empty = await ok("list_feeds");
    expect(empty).toEqual({ items: [], total: 0, page: 1, size: 20, pages: 0 });
    // The import address rules hold for an agent too: a loopback address is refused, in words.
    const refused = errorText(await call(client, "subscribe_feed", { url: `${server.url}/feed.xml` }));
    expect(refused).toContain("imports only reach public addresses");
    expect(errorText(await call(client, "subscribe_feed", { url: "https://example.com/feed", interval_minutes: 5 }))).toContain("interval_minutes:");
  });

  test("ChatGPT's search and fetch: string ids, the note's Markdown as text, a link into the page", async () => {
    const found = await ok("search", { query: "anchoring" });
    // The two written here (and the page imported above, once its task has run).
    expect(found.results.map((result: { title: string }) => result.title)).toEqual(expect.arrayContaining(["Anchoring effect", "Kahneman"]));
    for (const result of found.results) {
      expect(result.id).toMatch(/^\d+$/);
      expect(result.url).toBe(`${server.url}/graph#note=${result.id}`);
    }
    const anchoring = found.results.find((result: { title: string }) => result.title === "Anchoring effect");
    const document = await ok("fetch", { id: anchoring.id });
    expect(document).toMatchObject({ id: anchoring.id, title: "Anchoring effect", url: anchoring.url });
    expect(document.text).toBe((await alice.get(`/api/notes/${anchoring.id}`)).body.content);
    expect(document.metadata).toMatchObject({ tags: ["psychology"], source_platform: null, source_url: null });
  });

  test("bad input to every tool is an isError result naming what is wrong, never a protocol error", async () => {
    const bad: [string, Record<string, unknown>, string][] = [
      ["search_notes", {}, "q"],
      ["search_notes", { q: "x", size: 1000 }, "size"],
      ["list_notes", { page: 0 }, "page"],
      ["get_note", { id: "abc" }, "id"],
      ["get_note", { id: -1 }, "id"],
      ["create_note", { title: "" }, "title"],
      ["create_note", { content: "no title" }, "title"],
      ["update_note", { title: "no id" }, "id"],
      ["delete_note", {}, "id"],
      ["ask", { question: "" }, "question"],
      ["search_concepts", {}, "q"],
      ["get_concept", { id: 0 }, "id"],
      ["import", { platform: "myspace", url: "https://example.com" }, "platform"],
      ["get_task", { id: "x" }, "id"],
      ["build_graph", { mode: "sideways" }, "mode"],
      ["search", { query: "" }, "query"],
      ["fetch", { id: "not-a-number" }, "id"],
      ["list_versions", { id: "x" }, "id"],
      ["restore_version", { id: 1 }, "version"],
      ["subscribe_feed", { url: "ftp://example.com/feed" }, "url"],
      ["list_feeds", { size: 0 }, "size"],
    ];
    for (const [name, args, field] of bad) {
      const text = errorText(await call(client, name, args));
      expect({ name, text }).toEqual({ name, text: expect.stringContaining("Input validation failed") });
      expect({ name, text }).toEqual({ name, text: expect.stringContaining(`${field}:`) });
    }
  });

  test("a missing note is an isError 'not found'; an unknown tool is an error too", async () => {
    expect(errorText(await call(client, "get_note", { id: 999_999 }))).toBe("Note 999999 not found");
    expect(errorText(await call(client, "fetch", { id: "999999" }))).toBe("Note 999999 not found");
    const unknown = await client.callTool({ name: "drop_database", arguments: {} }).then(
      (result) => (result as CallToolResult).isError === true,
      (error: Error) => /Unknown tool/.test(error.message),
    );
    expect(unknown).toBe(true);
  });
});

describe("whose notes, and which scopes", () => {
  test("another user's notes are never reachable: get, update, delete, fetch and the resource all say not found", async () => {
    const client = await connect(aliceToken);
    for (const [name, args] of [
      ["get_note", { id: bobNoteId }],
      ["update_note", { id: bobNoteId, title: "taken" }],
      ["delete_note", { id: bobNoteId }],
      ["fetch", { id: String(bobNoteId) }],
    ] as const) {
      expect(errorText(await call(client, name, args))).toBe(`Note ${bobNoteId} not found`);
    }
    await expect(client.readResource({ uri: `rhizome://notes/${bobNoteId}` })).rejects.toThrow(/not found/);
    const resources = await client.listResources();
    expect(resources.resources.some((resource) => resource.name === "Bob's secret")).toBe(false);
    await client.close();
    expect((await bob.get(`/api/notes/${bobNoteId}`)).body.title).toBe("Bob's secret");
  });

  test("a tool outside the token's scopes answers isError with the missing scope, and changes nothing", async () => {
    const client = await connect(await createAccessToken(alice, ["notes:read"]));
    const before = (await alice.get("/api/notes")).body.total;
    expect(errorText(await call(client, "create_note", { title: "not allowed" }))).toBe("This token lacks the scope notes:write");
    expect(errorText(await call(client, "build_graph", {}))).toBe("This token lacks the scope graph:write");
    expect((await alice.get("/api/notes")).body.total).toBe(before);
    await client.close();
    const graphOnly = await connect(await createAccessToken(alice, ["graph:read"]));
    await expect(graphOnly.listResources()).rejects.toThrow(/lacks the scope notes:read/);
    await graphOnly.close();
  });
});

describe("resources", () => {
  test("the note template, the 50 notes updated last, and a note's Markdown", async () => {
    const { api: carol } = await api.newUser("mcpcarol");
    const ids: number[] = [];
    for (let n = 0; n < 55; n++) ids.push((await carol.post("/api/notes", { title: `Note ${n}`, content: `Body ${n}` })).body.id);
    const client = await connect(await createAccessToken(carol, ["notes:read"]));
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: "rhizome://notes/{id}", mimeType: "text/markdown" })]);
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(ids.slice(5).reverse().map((id) => `rhizome://notes/${id}`));
    const read = await client.readResource({ uri: `rhizome://notes/${ids[7]}` });
    expect(read.contents).toEqual([{ uri: `rhizome://notes/${ids[7]}`, mimeType: "text/markdown", text: "Body 7" }]);
    await expect(client.readResource({ uri: "rhizome://notes/abc" })).rejects.toThrow(/not found/i);
    await expect(client.readResource({ uri: "file:///etc/passwd" })).rejects.toThrow(/not found/i);
    await client.close();
  });
});

describe("the HTTP edge of /mcp", () => {
  test("no token, a bad token and a login session's token are 401s; the session's says to create an access token", async () => {
    for (const headers of [{ authorization: "" }, { authorization: "Bearer rhz_nope" }, { authorization: "Basic abc" }]) {
      const response = await post(INITIALIZE, headers);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
    }
    const sessionToken = alice.token!;
    const response = await post(INITIALIZE, { authorization: `Bearer ${sessionToken}` });
    expect(response.status).toBe(401);
    expect(((await response.json()) as any).message).toContain("create an access token");
    await expect(connect(sessionToken)).rejects.toThrow();
  });

  test("a hostile Origin is refused with 403; the service's own and MCP_ALLOWED_ORIGINS pass; no Origin passes", async () => {
    for (const origin of ["http://evil.example", "null", `${server.url}.evil.example`]) {
      const refused = await post(INITIALIZE, { origin });
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as any).code).toBe("FORBIDDEN");
    }
    for (const origin of [server.url, ALLOWED_ORIGIN]) expect((await post(INITIALIZE, { origin })).status).toBe(200);
    expect((await post(INITIALIZE)).status).toBe(200);
  });

  test("GET and DELETE are 405; an unsupported protocol version is 400; over 2 MiB is 413; malformed JSON is 400", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${server.url}/mcp`, { method, headers: { authorization: `Bearer ${aliceToken}`, accept: "text/event-stream" } });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
    }
    const listTools = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };
    expect((await post(listTools, { "mcp-protocol-version": "1999-01-01" })).status).toBe(400);
    expect((await post(listTools, { "mcp-protocol-version": "2025-11-25" })).status).toBe(200);
    const huge = { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "create_note", arguments: { title: "big", content: "x".repeat(2 * 1024 * 1024) } } };
    const tooLarge = await post(huge);
    expect(tooLarge.status).toBe(413);
    expect(((await tooLarge.json()) as any).code).toBe("PAYLOAD_TOO_LARGE");
    const malformed = await post("{not json");
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as any).error.code).toBe(-32700);
  });
});

describe("revocation", () => {
  test("a revoked token is refused within a second, by this API process and by a second one", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-mcp-second-"));
    const second = await startServiceProcess({
      dataDir,
      environment: { ROLE: "api", LIBSQL_URL: `file:${server.dbFile}`, DATABASE_URL: server.databaseUrl, LOG_LEVEL: "info" },
    });
    try {
      const created = await alice.post("/api/auth/tokens", { name: "to revoke", scopes: ["notes:read"] });
      const token = created.body.token;
      const here = await connect(token);
      const there = await connect(token, second.url);
      for (const client of [here, there]) expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      expect((await alice.delete(`/api/auth/tokens/${created.body.id}`)).status).toBe(204);
      // Each process has its own second from the revocation: watched side by side, neither waits on the other.
      await Promise.all(
        [here, there].map((client, index) => {
          const refusal = () => client.listTools().then(() => "still listed", (error: Error) => String(error));
          return until(refusal, { done: (seen) => /401|Unauthorized|revoked/i.test(seen), timeoutMs: 1000, what: `the revoked token refused by process ${index + 1}` });
        }),
      );
      for (const url of [server.url, second.url]) {
        const response = await fetch(`${url}/mcp`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(INITIALIZE) });
        expect(response.status).toBe(401);
      }
    } finally {
      await second.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
