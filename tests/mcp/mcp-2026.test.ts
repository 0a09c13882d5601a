import { beforeAll, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { ALL_SCOPES, createAccessToken } from "../support/access-tokens";
import { awaitBuild } from "../support/await-build";
import { serverForThisFile } from "../support/server";

// Protocol revision 2026-07-28 on /mcp: the official v2 client SDK pinned to it (no initialize, no
// session, each request carrying its own _meta), and raw requests for what a client SDK would
// never send (headers that contradict the body, a missing envelope, an unknown revision).

const REVISION = "2026-07-28";
const { server, api } = await serverForThisFile();
const { api: alice } = await api.newUser("mcp26alice");
const { api: bob } = await api.newUser("mcp26bob");
let aliceToken: string;
let bobToken: string;
let aliceNoteId: number;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

beforeAll(async () => {
  aliceNoteId = (await alice.post("/api/notes", { title: "Anchoring effect", content: "The **anchoring effect** biases estimates toward a first number. See Kahneman.", tags: ["psychology"] })).body.id;
  await alice.post("/api/notes", { title: "Kahneman", content: "Daniel Kahneman wrote about the anchoring effect and loss aversion.", tags: ["psychology"] });
  await bob.post("/api/notes", { title: "Bob's own", content: "Bob writes about anchoring too." });
  aliceToken = await createAccessToken(alice, ALL_SCOPES);
  bobToken = await createAccessToken(bob, ALL_SCOPES);
});

/** The v2 client, pinned to 2026-07-28; `seen` records every HTTP exchange it makes. */
async function connect(token: string) {
  const seen: { request: Headers; body: any; response: Response }[] = [];
  const recordingFetch = async (input: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(input, init);
    seen.push({ request: new Headers(init?.headers), body: JSON.parse(String(init?.body ?? "null")), response: response.clone() });
    return response;
  };
  const client = new Client({ name: "rhizome-test-v2", version: "1.0.0" }, { versionNegotiation: { mode: { pin: REVISION } } });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } }, fetch: recordingFetch });
  await client.connect(transport);
  return { client, seen };
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function expectValid(tool: Tool, result: CallToolResult): any {
  expect({ tool: tool.name, isError: result.isError ?? false }).toEqual({ tool: tool.name, isError: false });
  const validate = ajv.compile(tool.outputSchema!);
  expect({ tool: tool.name, errors: validate(result.structuredContent) ? null : validate.errors }).toEqual({ tool: tool.name, errors: null });
  const text = result.content.find((part) => part.type === "text") as { text: string };
  expect(JSON.parse(text.text)).toEqual(result.structuredContent);
  return result.structuredContent;
}

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": REVISION,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};

/** A raw 2026-07-28 POST with the headers that revision asks for; `headers` overrides them (undefined drops one). */
async function modern(method: string, params: Record<string, unknown> = {}, options: { headers?: Record<string, string | undefined>; meta?: Record<string, unknown>; token?: string } = {}) {
  const name = (params.name ?? params.uri) as string | undefined;
  const headers: Record<string, string | undefined> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    authorization: `Bearer ${options.token ?? aliceToken}`,
    "mcp-protocol-version": REVISION,
    "mcp-method": method,
    ...(name !== undefined && { "mcp-name": name }),
    ...options.headers,
  };
  const response = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params: { ...params, _meta: options.meta ?? ENVELOPE } }),
  });
  return { response, body: (await response.json()) as any };
}

describe("the v2 client SDK on 2026-07-28", () => {
  test("connects without initialize or a session: server/discover, then each request stands alone with its headers", async () => {
    const { client, seen } = await connect(aliceToken);
    expect(client.getServerVersion()).toMatchObject({ name: "rhizome" });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    await client.listTools();
    await client.close();
    expect(seen.map((exchange) => exchange.body.method)).toEqual(["server/discover", "tools/list"]);
    for (const { request, body, response } of seen) {
      expect(request.get("mcp-protocol-version")).toBe(REVISION);
      expect(request.get("mcp-method")).toBe(body.method);
      expect(body.params._meta["io.modelcontextprotocol/protocolVersion"]).toBe(REVISION);
      expect(response.headers.get("mcp-session-id")).toBeNull();
      expect(response.headers.get("content-type")).toContain("application/json");
      const answer = (await response.json()) as any;
      expect(answer.result.resultType).toBe("complete");
      expect(answer.result._meta["io.modelcontextprotocol/serverInfo"]).toMatchObject({ name: "rhizome" });
    }
  });

  test("every tool answers its input sensibly, valid against its own outputSchema", async () => {
    const { client } = await connect(aliceToken);
    const tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
    const called = new Set<string>();
    const ok = async (name: string, args: Record<string, unknown> = {}) => {
      called.add(name);
      return expectValid(tools.get(name)!, await call(client, name, args));
    };

    expect((await ok("whoami")).username).toMatch(/^mcp26alice_/);
    const found = await ok("search_notes", { q: "anchoring" });
    expect(found.items.map((item: { title: string }) => item.title).sort()).toEqual(["Anchoring effect", "Kahneman"]);
    expect((await ok("list_notes", { tag: "psychology" })).total).toBe(2);
    expect((await ok("list_tags")).items).toContainEqual({ tag: "psychology", count: 2 });

    const created = await ok("create_note", { title: "Written in 2026", content: "Over the **new** wire.", tags: ["wire"] });
    const read = await call(client, "get_note", { id: created.id });
    called.add("get_note");
    expect(expectValid(tools.get("get_note")!, read)).toEqual((await alice.get(`/api/notes/${created.id}`)).body);
    expect(read.content).toContainEqual({ type: "resource_link", uri: `rhizome://notes/${created.id}`, name: "Written in 2026", mimeType: "text/markdown" });
    expect(await ok("update_note", { id: created.id, tags: ["wire", "edited"] })).toMatchObject({ tags: ["wire", "edited"] });
    expect((await ok("list_versions", { id: created.id })).items).toHaveLength(1);
    expect(await ok("restore_version", { id: created.id, version: 1 })).toMatchObject({ tags: ["wire"] });

    const results = (await ok("search", { query: "anchoring" })).results;
    expect(results.map((result: { title: string }) => result.title)).toContain("Anchoring effect");
    expect(await ok("fetch", { id: String(aliceNoteId) })).toMatchObject({ id: String(aliceNoteId), title: "Anchoring effect", url: `${server.url}/graph#note=${aliceNoteId}` });

    const task = await ok("import", { platform: "web", content: "<html><head><title>Pasted</title></head><body><article><p>A pasted page about anchoring, long enough to be read as the main text of the page by the importer.</p></article></body></html>" });
    expect(task).toMatchObject({ platform: "web" });
    expect((await ok("get_task", { id: task.id })).id).toBe(task.id);

    const answer = await ok("ask", { question: "What is the anchoring effect?" });
    expect(answer.answer).toBeNull();
    expect(answer.passages.length).toBeGreaterThan(0);

    expect(await ok("build_graph", { dry_run: true })).toHaveProperty("notes_to_extract");
    expect(["building", "completed"]).toContain((await ok("build_graph", { mode: "full" })).status);
    expect((await awaitBuild(alice)).status.status).toBe("completed");
    const concepts = await ok("search_concepts", { q: "anchoring", limit: 5 });
    expect(concepts.nodes.length).toBeGreaterThan(0);
    expect((await ok("get_concept", { id: concepts.nodes[0].id })).node.id).toBe(concepts.nodes[0].id);
    // Without embeddings, related notes share concepts: Kahneman's note shares "anchoring effect".
    expect((await ok("related_notes", { id: aliceNoteId })).items.map((item: { title: string }) => item.title)).toContain("Kahneman");

    expect(await ok("list_feeds")).toMatchObject({ items: [], total: 0 });
    // Following a feed fetches it; a loopback address is refused in words, as REST refuses it.
    const refused = await call(client, "subscribe_feed", { url: `${server.url}/feed.xml` });
    called.add("subscribe_feed");
    expect(refused.isError).toBe(true);
    expect((refused.content[0] as { text: string }).text).toContain("imports only reach public addresses");

    expect(await ok("delete_note", { id: created.id })).toEqual({ id: created.id, deleted: true });
    expect([...tools.keys()].filter((name) => !called.has(name))).toEqual([]);
    await client.close();
  });

  test("resources: the template, the notes updated last, a note's Markdown; an unknown one is not found", async () => {
    const { client } = await connect(aliceToken);
    expect((await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate)).toEqual(["rhizome://notes/{id}"]);
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toContain(`rhizome://notes/${aliceNoteId}`);
    const read = await client.readResource({ uri: `rhizome://notes/${aliceNoteId}` });
    expect(read.contents).toEqual([expect.objectContaining({ uri: `rhizome://notes/${aliceNoteId}`, mimeType: "text/markdown" })]);
    await expect(client.readResource({ uri: "rhizome://notes/abc" })).rejects.toThrow(/not found/i);
    await client.close();
  });

  test("the v2 client's automatic negotiation picks 2026-07-28; its legacy mode still initializes", async () => {
    const auto = new Client({ name: "auto", version: "1" }, { versionNegotiation: { mode: "auto" } });
    await auto.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${aliceToken}` } } }));
    expect(auto.getNegotiatedProtocolVersion()).toBe(REVISION);
    expect((await auto.listTools()).tools.length).toBeGreaterThan(10);
    await auto.close();
    const legacy = new Client({ name: "legacy", version: "1" });
    await legacy.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${aliceToken}` } } }));
    expect(legacy.getNegotiatedProtocolVersion()).toBe("2025-11-25");
    expect((await call(legacy, "whoami")).isError ?? false).toBe(false);
    await legacy.close();
  });
});

describe("raw 2026-07-28 requests", () => {
  test("server/discover: supportedVersions, capabilities, instructions, and the server's info in _meta", async () => {
    const { response, body } = await modern("server/discover");
    expect(response.status).toBe(200);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(body.result).toMatchObject({
      resultType: "complete",
      supportedVersions: [REVISION],
      capabilities: { tools: {}, resources: {} },
      instructions: expect.stringContaining("notes"),
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "rhizome", version: expect.any(String) } },
    });
  });

  test("a tools/call with the right headers is answered alone, with resultType and the tool's answer", async () => {
    const { response, body } = await modern("tools/call", { name: "get_note", arguments: { id: aliceNoteId } });
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    expect(body.id).toBe(7);
    expect(body.result.resultType).toBe("complete");
    expect(body.result.structuredContent).toEqual((await alice.get(`/api/notes/${aliceNoteId}`)).body);
    const listed = await modern("tools/list");
    expect(listed.body.result).toMatchObject({ resultType: "complete", cacheScope: "private" });
  });

  test("a header that contradicts the body, or a missing one, is a 400 with HeaderMismatch (-32020)", async () => {
    const get = { name: "get_note", arguments: { id: aliceNoteId } };
    for (const headers of [
      { "mcp-method": "tools/list" },
      { "mcp-method": undefined },
      { "mcp-name": "delete_note" },
      { "mcp-name": undefined },
      { "mcp-protocol-version": "2025-11-25" },
    ]) {
      const { response, body } = await modern("tools/call", get, { headers });
      expect({ headers, status: response.status, code: body.error?.code }).toEqual({ headers, status: 400, code: -32020 });
    }
    const resource = await modern("resources/read", { uri: `rhizome://notes/${aliceNoteId}` }, { headers: { "mcp-name": "rhizome://notes/999999" } });
    expect([resource.response.status, resource.body.error?.code]).toEqual([400, -32020]);
  });

  test("an envelope missing a required key is a 400 invalid-params (-32602); an unknown revision is a 400 naming the supported ones", async () => {
    const { "io.modelcontextprotocol/clientCapabilities": _capabilities, ...noCapabilities } = ENVELOPE;
    const missing = await modern("tools/list", {}, { meta: noCapabilities });
    expect([missing.response.status, missing.body.error?.code]).toEqual([400, -32602]);
    // The revision named in the header but no envelope at all: malformed, not a 2025 request.
    const bare = await modern("tools/list", {}, { meta: {} });
    expect([bare.response.status, bare.body.error?.code]).toEqual([400, -32602]);

    const future = await modern("tools/list", {}, { meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01" }, headers: { "mcp-protocol-version": "2099-01-01" } });
    expect(future.response.status).toBe(400);
    expect(future.body.error.code).toBe(-32022);
    expect(future.body.error.data.supported).toEqual([REVISION]);
  });

  test("the edge still comes first: no token is a 401 with its challenge, a foreign Origin a 403", async () => {
    const anonymous = await fetch(`${server.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", "mcp-protocol-version": REVISION, "mcp-method": "server/discover" }, body: "{}" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toContain("resource_metadata=");
    const foreign = await modern("server/discover", {}, { headers: { origin: "http://evil.example" } });
    expect(foreign.response.status).toBe(403);
  });
});

describe("another user's notes over 2026-07-28", () => {
  test("bob's token reaches none of alice's notes through any tool or resource", async () => {
    const { client } = await connect(bobToken);
    for (const [name, args] of [
      ["get_note", { id: aliceNoteId }],
      ["fetch", { id: String(aliceNoteId) }],
      ["update_note", { id: aliceNoteId, title: "taken" }],
      ["delete_note", { id: aliceNoteId }],
      ["list_versions", { id: aliceNoteId }],
      ["restore_version", { id: aliceNoteId, version: 1 }],
      ["related_notes", { id: aliceNoteId }],
    ] as const) {
      const result = await call(client, name, args);
      expect({ name, isError: result.isError, text: (result.content[0] as { text: string }).text }).toEqual({ name, isError: true, text: `Note ${aliceNoteId} not found` });
    }
    for (const [name, args] of [
      ["search_notes", { q: "anchoring" }],
      ["search", { query: "anchoring" }],
      ["list_notes", {}],
    ] as const) {
      expect({ name, text: JSON.stringify((await call(client, name, args)).structuredContent) }).toEqual({ name, text: expect.not.stringContaining("Anchoring effect") });
    }
    const answer = await call(client, "ask", { question: "What is the anchoring effect?" });
    expect(JSON.stringify(answer.structuredContent)).not.toContain("first number");
    await expect(client.readResource({ uri: `rhizome://notes/${aliceNoteId}` })).rejects.toThrow(/not found/i);
    expect((await client.listResources()).resources.map((resource) => resource.uri)).not.toContain(`rhizome://notes/${aliceNoteId}`);
    await client.close();
    expect((await alice.get(`/api/notes/${aliceNoteId}`)).body.title).toBe("Anchoring effect");
  });
});
