// `npm run bench:mcp-steps`: where one `get_note` over MCP spends its time, against GET /api/notes/{id},
// in process (the app's own `handle`, no sockets): each step run alone N times in a row, the steps
// interleaved round after round, and the median of the rounds printed in CPU µs per call. It
// isolates the SDK's own cost by serving the same answer from a canned tools/call handler.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createMcpHandler, Server } from "@modelcontextprotocol/server";
import { openNotesDatabase } from "../../src/db/client";
import { createHttpApp } from "../../src/http/app";
import { buildOpenApiDocument } from "../../src/http/openapi-document";
import { readBodyText } from "../../src/http/request-body";
import { createMcpAnswerer } from "../../src/mcp/answer-request";
import { appsExtension } from "../../src/mcp/apps/apps-extension";
import { authInfoFor, type Caller } from "../../src/mcp/caller";
import { mcpServerFactory } from "../../src/mcp/mcp-server";
import { tasksExtension } from "../../src/mcp/tasks/tasks-extension";
import { toolCatalogue } from "../../src/mcp/tool-catalogue";
import { buildTools, callTool } from "../../src/mcp/tools";
import { authenticateBearer } from "../../src/modules/auth/authenticate";
import { createSecretBox } from "../../src/modules/auth/secret-box";
import { ChangeFeed } from "../../src/modules/events/change-feed";
import type { ServiceContext } from "../../src/modules/context";
import { callProcedure } from "../../src/trpc/call-procedure";
import { appRouter } from "../../src/trpc/root";
import { draftContent } from "./seed-notes";
import { seededRandom } from "../../src/modules/graph/seeded-random";

const N = Number(process.env.BENCH_CALLS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const REVISION = "2026-07-28";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-bench-mcp-steps-"));
const notes = await openNotesDatabase({ url: `file:${path.join(dir, "rhizome.db")}` });
const graphSettings: ServiceContext["graphSettings"] = { extractor: "local", llmConcurrency: 1, anthropic: {} };
// A note read touches no queue: these stand in for the ones the service would open.
const services: ServiceContext = {
  db: notes.db,
  secretBox: await createSecretBox({ dataDir: dir }),
  importQueue: {} as ServiceContext["importQueue"],
  graphQueue: {} as ServiceContext["graphQueue"],
  changes: { publish() {} } as unknown as ServiceContext["changes"],
  graphSettings,
};
const feed = new ChangeFeed({ db: notes.db, graphSettings });
const app = createHttpApp({ router: appRouter, services, document: buildOpenApiDocument(appRouter), checkHealth: async () => {}, events: feed });
const base = "http://127.0.0.1";
const send = (method: string, url: string, body?: string, headers: Record<string, string> = {}) =>
  app.handle(new Request(base + url, { method, headers: { "content-type": "application/json", ...headers }, body }));

await send("POST", "/api/auth/register", JSON.stringify({ username: "steps", password: "bench-password-123" }));
const login = await app.handle(
  new Request(`${base}/api/auth/login`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "username=steps&password=bench-password-123" }),
);
const session = ((await login.json()) as { access_token: string }).access_token;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const token = ((await (await send("POST", "/api/auth/tokens", JSON.stringify({ name: "steps", scopes: ["notes:read"] }), bearer(session))).json()) as { token: string }).token;
// One note of the size bench:mcp reads (1–2 KB of Markdown).
const content = draftContent(seededRandom(11), 0);
const created = await send("POST", "/api/notes", JSON.stringify({ title: "A note", content, tags: ["ideas", "work"] }), bearer(session));
const noteId = ((await created.json()) as { id: number }).id;

const envelope = { "io.modelcontextprotocol/protocolVersion": REVISION, "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo": { name: "steps", version: "1" } };
const modernBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_note", arguments: { id: noteId }, _meta: envelope } });
const legacyBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_note", arguments: { id: noteId } } });
const accept = { accept: "application/json, text/event-stream", "content-type": "application/json" };
const modernHeaders = { ...accept, ...bearer(token), "mcp-protocol-version": REVISION, "mcp-method": "tools/call", "mcp-name": "get_note" };
const modernRequest = () => new Request(`${base}/mcp`, { method: "POST", headers: modernHeaders, body: modernBody });

const authenticated = await authenticateBearer(notes.db, `Bearer ${token}`, "full", { at: "mcp" });
const caller: Caller = { ...services, clientAddress: () => "127.0.0.1", userAgent: () => null, authorization: `Bearer ${token}`, transport: "mcp", authenticated };
const tools = buildTools(appRouter, toolCatalogue((id) => `${base}/graph#note=${id}`));
const getNote = tools.get("get_note")!;
const answer = createMcpAnswerer(appRouter, () => base);
const newServer = mcpServerFactory({ router: appRouter, tools, extensions: [tasksExtension, appsExtension] });
const parsedModern = JSON.parse(modernBody);
const authInfo = authInfoFor(caller, token);
// The SDK's own share: the same answer from a canned tools/call handler, on our server and on a bare one.
const cannedResult = await callTool(appRouter, getNote, caller, { id: noteId });
const cannedOn = (makeServer: () => Server) =>
  createMcpHandler(
    () => {
      const server = makeServer();
      server.removeRequestHandler("tools/call");
      server.setRequestHandler("tools/call", () => ({ ...cannedResult }));
      return server;
    },
    { legacy: "reject" },
  );
const cannedOnOurs = cannedOn(newServer);
const cannedOnBare = cannedOn(() => new Server({ name: "canned", version: "1" }, { capabilities: { tools: {} } }));
const answerMessage = { jsonrpc: "2.0", id: 1, result: { ...cannedResult, resultType: "complete" } };

const steps: [string, () => unknown][] = [
  ["REST GET /api/notes/{id}, whole request", async () => (await send("GET", `/api/notes/${noteId}`, undefined, bearer(token))).arrayBuffer()],
  [`MCP get_note ${REVISION}, whole request`, async () => (await app.handle(modernRequest())).arrayBuffer()],
  ["MCP get_note 2025-11-25, whole request", async () => (await send("POST", "/mcp", legacyBody, { ...accept, ...bearer(token), "mcp-protocol-version": "2025-11-25" })).arrayBuffer()],
  ["  both faces: token check (authenticateBearer)", () => authenticateBearer(notes.db, `Bearer ${token}`, "full", { at: "mcp" })],
  ["  both faces: notes.get procedure (callProcedure)", () => callProcedure(appRouter, "notes.get", caller, { id: noteId })],
  ["  MCP: body read + JSON.parse (+ new Request)", async () => JSON.parse(await readBodyText(modernRequest(), 2 << 20))],
  ["  MCP: answerer, SDK + our server + tool (+ new Request)", async () => (await answer(modernRequest(), parsedModern, caller, token)).arrayBuffer()],
  ["    SDK + our server, canned answer (+ new Request)", async () => (await cannedOnOurs.fetch(modernRequest(), { parsedBody: parsedModern, authInfo })).arrayBuffer()],
  ["    SDK + bare Server, canned answer (+ new Request)", async () => (await cannedOnBare.fetch(modernRequest(), { parsedBody: parsedModern, authInfo })).arrayBuffer()],
  ["    our server factory (Server + handlers)", () => newServer()],
  ["    get_note tool alone (callTool: procedure + result)", () => callTool(appRouter, getNote, caller, { id: noteId })],
  ["    JSON.stringify of the answer's message", () => JSON.stringify(answerMessage)],
  // Run one after the other, the SDK's Zod work and the procedure's each cost more than alone.
  ["    SDK canned answer, then the tool (not nested)", async () => {
    await (await cannedOnOurs.fetch(modernRequest(), { parsedBody: parsedModern, authInfo })).arrayBuffer();
    return callTool(appRouter, getNote, caller, { id: noteId });
  }],
  ["    new Request (harness; in five rows above)", () => modernRequest()],
];

// BENCH_ONLY=<words>: only the steps whose name contains them (to profile one with --cpu-prof).
const only = process.env.BENCH_ONLY;
const chosen = only ? steps.filter(([name]) => name.includes(only)) : steps;
const samples = chosen.map(() => [] as number[]);
for (let round = 0; round < ROUNDS; round++) {
  for (const [index, [, step]] of chosen.entries()) {
    for (let i = 0; i < N / 10; i++) await step();
    // CPU time, not wall time: on a loaded machine the process waits its turn, and that is not the request's cost.
    const start = process.cpuUsage();
    for (let i = 0; i < N; i++) await step();
    const spent = process.cpuUsage(start);
    samples[index]!.push((spent.user + spent.system) / N);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(`load average ${fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}; ${ROUNDS} rounds × ${N} calls per step; median CPU µs per call (min–max)`);
for (const [index, [name]] of chosen.entries()) {
  const values = samples[index]!;
  console.log(`${name.padEnd(58)} ${median(values).toFixed(1).padStart(7)}   (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})`);
}
feed.closeAll();
notes.close();
fs.rmSync(dir, { recursive: true, force: true });
process.exit(0);
