// `bun run bench:mcp`: the same reads over MCP and over REST, on one service, in one run. `get_note`
// against GET /api/notes/{id}, and `search_notes` against GET /api/notes?q=, both with the same
// access token, in alternating slices. MCP requests are what a 2026-07-28 client sends (each one
// standing alone: its `_meta` envelope and its headers); `get_note` is also sent as a 2025 client
// sends it after `initialize`, and GET /api/notes/{id} with a login session's token shows what the
// access-token check costs a REST read. Targets: MCP ≥ 0.8 of REST throughput for get_note, ≥ 0.9
// for search_notes (on the 2026-07-28 wire).
import { seededRandom } from "../../src/modules/graph/seeded-random";
import { runLoad, type LoadResult, type TargetRequest } from "./load";
import { draftContent, draftTags } from "./seed-notes";
import { type BenchService, withBenchService } from "./server-process";

const NOTES = Number(process.env.BENCH_NOTES ?? 2_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 1_000);
const SLICES = Number(process.env.BENCH_SLICES ?? 5);
const SLICE_MS = Number(process.env.BENCH_SLICE_MS ?? 1_000);
const SEARCH_WORDS = ["memory", "attention", "garden", "river", "latency", "schedule", "library", "evidence", "pattern", "outline"];
const REVISION = "2026-07-28";
const ENVELOPE = { "io.modelcontextprotocol/protocolVersion": REVISION, "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo": { name: "bench:mcp", version: "1" } };
const ACCEPT = { accept: "application/json, text/event-stream" };
const LEGACY_HEADERS = { ...ACCEPT, "mcp-protocol-version": "2025-11-25" };
const modernHeaders = (tool: string) => ({ ...ACCEPT, "mcp-protocol-version": REVISION, "mcp-method": "tools/call", "mcp-name": tool });

await withBenchService("rhizome-bench-mcp-", main);

async function main({ service, session }: BenchService) {
  const ids = await seed(session.baseUrl, session.token);
  const token = await accessToken(session.baseUrl, session.token);
  console.log(`${NOTES.toLocaleString("en-US")} notes written through the API; ${CONNECTIONS} connections, ${SLICES} × ${SLICE_MS} ms slices per target`);
  const sample = ids.filter((_, index) => index % 10 === 0);

  const toolCall = (name: string, args: Record<string, unknown>, id: number, meta?: Record<string, unknown>) =>
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, ...(meta && { _meta: meta }) } });
  const comparisons: { name: string; target: number; rest: TargetRequest; mcp: TargetRequest; others: { label: string; request: TargetRequest }[] }[] = [
    {
      name: "get_note vs GET /api/notes/{id}",
      target: 0.8,
      rest: { method: "GET", paths: sample.map((id) => `/api/notes/${id}`), token },
      mcp: { method: "POST", paths: ["/mcp"], bodies: sample.map((id, index) => toolCall("get_note", { id }, index, ENVELOPE)), headers: modernHeaders("get_note"), token },
      others: [
        { label: "MCP 2025-11-25", request: { method: "POST", paths: ["/mcp"], bodies: sample.map((id, index) => toolCall("get_note", { id }, index)), headers: LEGACY_HEADERS, token } },
        { label: "REST (login session)", request: { method: "GET", paths: sample.map((id) => `/api/notes/${id}`), token: session.token } },
      ],
    },
    {
      name: "search_notes vs GET /api/notes?q=",
      target: 0.9,
      rest: { method: "GET", paths: SEARCH_WORDS.map((word) => `/api/notes?q=${word}`), token },
      mcp: { method: "POST", paths: ["/mcp"], bodies: SEARCH_WORDS.map((q, index) => toolCall("search_notes", { q }, index, ENVELOPE)), headers: modernHeaders("search_notes"), token },
      others: [],
    },
  ];
  await checkAnswers(session.baseUrl, comparisons.flatMap((comparison) => [comparison.mcp, ...comparison.others.filter((other) => other.request.bodies).map((other) => other.request)]), token);

  const rows: string[] = [];
  let pass = true;
  for (const comparison of comparisons) {
    const requests = [comparison.rest, comparison.mcp, ...comparison.others.map((other) => other.request)];
    const results = await runLoad({
      targets: requests.map((request) => ({ name: comparison.name, baseUrl: session.baseUrl, pid: service.pid, port: service.port, request })),
      method: "GET",
      paths: ["/"],
      token,
      connections: CONNECTIONS,
      warmupMs: WARMUP_MS,
      slices: SLICES,
      sliceMs: SLICE_MS,
      settleMs: 250,
    });
    const [rest, mcp, ...others] = results as [LoadResult, LoadResult, ...LoadResult[]];
    const ratio = mcp.requestsPerSecond / rest.requestsPerSecond;
    const met = ratio >= comparison.target;
    pass &&= met && rest.errors === 0 && mcp.errors === 0 && others.every((other) => other.errors === 0);
    rows.push(row(`${comparison.name}: REST (access token)`, rest, ""));
    rows.push(row(`${comparison.name}: MCP ${REVISION}`, mcp, `${ratio.toFixed(2)} (≥ ${comparison.target}) ${met ? "PASS" : "FAIL"}`));
    comparison.others.forEach((other, index) => rows.push(row(`${comparison.name}: ${other.label}`, others[index]!, `÷ REST ${(others[index]!.requestsPerSecond / rest.requestsPerSecond).toFixed(2)}`)));
    for (const line of rows.slice(-requests.length)) console.log(line);
  }
  console.log(`\n| Route | req/s | p50 ms | p99 ms | server CPU ms/req | errors | MCP / REST |`);
  console.log("|---|---:|---:|---:|---:|---:|---|");
  for (const line of rows) console.log(line);
  console.log(`\n${pass ? "PASS" : "FAIL"}: MCP (${REVISION}) throughput ≥ 0.8 of REST for get_note, ≥ 0.9 for search_notes`);
  if (!pass) process.exitCode = 1;
}

function row(name: string, result: LoadResult, verdict: string): string {
  return `| ${name} | ${result.requestsPerSecond.toFixed(0)} | ${result.p50Ms.toFixed(2)} | ${result.p99Ms.toFixed(2)} | ${result.serverCpuMsPerRequest.toFixed(3)} | ${result.errors} | ${verdict} |`;
}

/** Notes of 1–2 KB of Markdown, written through POST /api/notes so the search index holds them as it would. */
async function seed(baseUrl: string, sessionToken: string): Promise<number[]> {
  const random = seededRandom(11);
  const ids: number[] = [];
  for (let start = 0; start < NOTES; start += 50) {
    const batch = Array.from({ length: Math.min(50, NOTES - start) }, (_, offset) => {
      const content = draftContent(random, start + offset);
      return fetch(`${baseUrl}/api/notes`, {
        method: "POST",
        headers: { authorization: `Bearer ${sessionToken}`, "content-type": "application/json" },
        body: JSON.stringify({ title: `${content.slice(2, content.indexOf("\n"))} (${start + offset + 1})`, content, tags: draftTags(random) }),
      }).then(async (response) => {
        if (response.status !== 201) throw new Error(`seeding: POST /api/notes answered ${response.status} ${await response.text()}`);
        return ((await response.json()) as { id: number }).id;
      });
    });
    ids.push(...(await Promise.all(batch)));
  }
  return ids;
}

async function accessToken(baseUrl: string, sessionToken: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/auth/tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${sessionToken}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench:mcp", scopes: ["notes:read"] }),
  });
  if (response.status !== 201) throw new Error(`creating the access token: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}

/** A tool error is an HTTP 200 too: each MCP request of the run is checked once for a real answer first. */
async function checkAnswers(baseUrl: string, requests: TargetRequest[], token: string): Promise<void> {
  for (const request of requests) {
    for (const body of request.bodies!.slice(0, 3)) {
      const response = await fetch(`${baseUrl}/mcp`, { method: "POST", headers: { ...request.headers, authorization: `Bearer ${token}`, "content-type": "application/json" }, body });
      const answer = (await response.json()) as { result?: { isError?: boolean; structuredContent?: unknown; resultType?: string } };
      const modern = request.headers?.["mcp-protocol-version"] === REVISION;
      if (response.status !== 200 || answer.result?.isError || !answer.result?.structuredContent || (modern && answer.result.resultType !== "complete")) {
        throw new Error(`MCP answered ${response.status} ${JSON.stringify(answer).slice(0, 300)} to ${body}`);
      }
    }
  }
}
