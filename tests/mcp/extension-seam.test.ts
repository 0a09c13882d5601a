import { describe, expect, test } from "bun:test";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { z } from "zod";
import { authInfoFor, type Caller } from "../../src/mcp/caller";
import { declaredCapabilities, type McpExtension } from "../../src/mcp/extension";
import { mcpServerFactory } from "../../src/mcp/mcp-server";
import { toolCatalogue } from "../../src/mcp/tool-catalogue";
import { buildTools } from "../../src/mcp/tools";
import { appRouter } from "../../src/trpc/root";

// The seam the Tasks extension (src/mcp/tasks/) and MCP Apps (src/mcp/apps/) plug into: an
// extension is advertised under capabilities.extensions, may answer a tools/call in the tool's
// place, adds its own request handlers and serves resources beside the notes. Driven in process
// through the SDK's own 2026-07-28 handler; nothing here reaches a database.

const TASKS = "io.modelcontextprotocol/tasks";
const caller = {
  transport: "mcp",
  authenticated: { user: { id: 1, username: "seam" }, credential: { kind: "access_token", tokenId: 1, scopes: ["imports", "notes:read"], grant: "personal", name: "seam" } },
} as unknown as Caller;

const seen: string[] = [];
const fakeTasks: McpExtension = {
  id: TASKS,
  settings: { ttlMs: 60_000 },
  callTool: async (call, run) => {
    const declared = declaredCapabilities(call.ctx)?.extensions?.[TASKS];
    seen.push(`${call.tool.spec.name} by ${call.caller.authenticated.credential.kind}`);
    if (call.tool.spec.name !== "import" || !declared) return run();
    return { resultType: "task", taskId: "task-1", status: "working", ttlMs: 60_000, content: [] };
  },
  install: (server) => server.setRequestHandler("tasks/get", { params: z.object({ taskId: z.string() }).loose() }, (params) => ({ taskId: params.taskId, status: "working" })),
  resources: {
    list: () => [{ uri: "ui://rhizome/note", name: "note", mimeType: "text/html;profile=mcp-app" }],
    read: (uri) => (uri === "ui://rhizome/note" ? { contents: [{ uri, mimeType: "text/html;profile=mcp-app", text: "<p>app</p>" }] } : undefined),
  },
};

const tools = buildTools(appRouter, toolCatalogue((id) => `http://rhizome.test/graph#note=${id}`));
const handler = createMcpHandler(mcpServerFactory({ router: appRouter, tools, extensions: [fakeTasks] }), { legacy: "reject" });

async function send(method: string, params: Record<string, unknown> = {}, capabilities: Record<string, unknown> = {}, name?: string) {
  const body = { jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": capabilities } } };
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": method };
  if (name) headers["mcp-name"] = name;
  const response = await handler.fetch(new Request("http://rhizome.test/mcp", { method: "POST", headers, body: JSON.stringify(body) }), { parsedBody: body, authInfo: authInfoFor(caller, "rhz_seam") });
  return { status: response.status, body: (await response.json()) as any };
}

describe("the extension seam", () => {
  test("an extension is advertised under capabilities.extensions, with its settings", async () => {
    const { body } = await send("server/discover");
    expect(body.result.capabilities.extensions).toEqual({ [TASKS]: { ttlMs: 60_000 } });
  });

  test("callTool answers in the tool's place for a client that declared the extension, and sees who calls", async () => {
    const { status, body } = await send("tools/call", { name: "import", arguments: { platform: "web", url: "https://example.com" } }, { extensions: { [TASKS]: {} } }, "import");
    expect(status).toBe(200);
    expect(body.result).toMatchObject({ resultType: "task", taskId: "task-1", status: "working" });
    expect(seen).toContain("import by access_token");
  });

  test("install adds request handlers; resources are listed and read before the notes", async () => {
    expect((await send("tasks/get", { taskId: "task-1" }, {}, "task-1")).body.result).toMatchObject({ taskId: "task-1", status: "working" });
    const read = await send("resources/read", { uri: "ui://rhizome/note" }, {}, "ui://rhizome/note");
    expect(read.body.result.contents).toEqual([{ uri: "ui://rhizome/note", mimeType: "text/html;profile=mcp-app", text: "<p>app</p>" }]);
  });
});
