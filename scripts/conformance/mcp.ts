// `npm run conformance:mcp`: the official MCP conformance suites' server scenarios against /mcp —
// @modelcontextprotocol/conformance 0.2.0-alpha.12 at 2026-07-28 and at 2025-11-25, and 0.1.16
// (the 2025 suite) — each with a baseline (beside this file) naming, with the reason, the
// scenarios that need the reference server's test tools, prompts or resources. The suites' CLI
// sends no credentials of its own, so it talks to a loopback proxy that adds the access token;
// the service's PUBLIC_URL is that proxy, as behind any reverse proxy, so its Origin rules hold.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dir, "../..");

export interface ConformanceSuite {
  name: string;
  /** The suite's CLI, run under Bun (it asks for Node 22, which this machine does not have). */
  cli: string;
  args: string[];
  baseline: string;
}

export const SUITES: ConformanceSuite[] = [
  { name: "0.2.0-alpha.12 at 2026-07-28", cli: "node_modules/@modelcontextprotocol/conformance/dist/index.js", args: ["--spec-version", "2026-07-28"], baseline: "mcp-2026-07-28.yml" },
  { name: "0.2.0-alpha.12 at 2025-11-25", cli: "node_modules/@modelcontextprotocol/conformance/dist/index.js", args: ["--spec-version", "2025-11-25"], baseline: "mcp-2025-11-25.yml" },
  { name: "0.1.16", cli: "node_modules/mcp-conformance-2025/dist/index.js", args: [], baseline: "mcp-2025-11-25.yml" },
];

export interface SuiteResult {
  suite: ConformanceSuite;
  /** 0 when every scenario passed except the baseline's, which failed as expected. */
  exitCode: number;
  /** The CLI's summary, one line a scenario (`✓ tools-list: 4 passed, 0 failed`). */
  summary: string[];
  output: string;
}

/** Runs one suite's server scenarios (all of them, as --suite all lists them) against `mcpUrl`. */
export async function runSuite(suite: ConformanceSuite, mcpUrl: string): Promise<SuiteResult> {
  // CONFORMANCE_RESULTS=<dir> keeps each scenario's checks.json there; otherwise they go with the run.
  const kept = process.env.CONFORMANCE_RESULTS;
  const outputDir = kept ? path.resolve(kept) : fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-conformance-"));
  fs.mkdirSync(outputDir, { recursive: true });
  try {
    const child = Bun.spawn(
      [process.execPath, path.join(ROOT, suite.cli), "server", "--url", mcpUrl, "--suite", "all", ...suite.args, "--expected-failures", path.join(import.meta.dir, suite.baseline), "-o", outputDir],
      { cwd: outputDir, stdout: "pipe", stderr: "pipe" },
    );
    const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    const output = `${stdout}\n${stderr}`;
    return { suite, exitCode, summary: output.split("\n").filter((line) => /^[✓✗] /.test(line)), output };
  } finally {
    if (!kept) fs.rmSync(outputDir, { recursive: true, force: true });
  }
}

/** A loopback proxy to `target()`'s /mcp that adds `Authorization: Bearer <token()>` to every request. */
export function startBearerProxy(target: () => string, token: () => string) {
  const proxy = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const headers = new Headers(request.headers);
      headers.set("authorization", `Bearer ${token()}`);
      headers.delete("host");
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
      return fetch(`${target()}${new URL(request.url).pathname}`, { method: request.method, headers, body, redirect: "manual" });
    },
  });
  return { url: `http://127.0.0.1:${proxy.port}`, stop: () => proxy.stop(true) };
}

if (import.meta.main) {
  const { benchScratch } = await import("../bench/server-process");
  const { registerAndLogin } = await import("../bench/tasks-client");
  let serviceUrl = "";
  let token = "";
  const proxy = startBearerProxy(() => serviceUrl, () => token);
  const scratch = benchScratch("rhizome-conformance-");
  let failed = false;
  try {
    const service = await scratch.start("service", "service-server.ts", { DATA_DIR: scratch.workDir, PUBLIC_URL: proxy.url });
    serviceUrl = service.url;
    const session = await registerAndLogin(service.url, "conformance");
    const headers = { authorization: `Bearer ${session.token}`, "content-type": "application/json" };
    const created = await fetch(`${service.url}/api/auth/tokens`, { method: "POST", headers, body: JSON.stringify({ name: "conformance", scopes: ["notes:read", "notes:write", "imports", "graph:read", "graph:write", "ask"] }) });
    token = ((await created.json()) as { token: string }).token;
    // resources/list has something to list.
    await fetch(`${service.url}/api/notes`, { method: "POST", headers, body: JSON.stringify({ title: "A note", content: "Listed as a resource." }) });
    for (const suite of SUITES) {
      const result = await runSuite(suite, `${proxy.url}/mcp`);
      console.log(`\n## ${suite.name} (baseline ${suite.baseline}): ${result.exitCode === 0 ? "PASS" : "FAIL"}`);
      for (const line of result.summary) console.log(line);
      if (result.exitCode !== 0) {
        failed = true;
        console.log(result.output.slice(-3000));
      }
    }
  } finally {
    proxy.stop();
    await scratch.cleanUp();
  }
  process.exit(failed ? 1 : 0);
}
