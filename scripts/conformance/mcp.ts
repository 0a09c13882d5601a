// `npm run conformance:mcp`: the official MCP conformance suites' server scenarios against /mcp —
// @modelcontextprotocol/conformance 0.2.0-alpha.12 at 2026-07-28 and at 2025-11-25, its extension
// scenarios (the Tasks extension's `tasks-*`, and the skills extension's, which skip a server that
// does not declare it), and 0.1.16 (the 2025 suite) — each with a baseline (beside this file)
// naming, with the reason, the scenarios or checks that need the reference server's test tools,
// prompts or resources. The suites' CLI sends no credentials of its own, so it talks to a loopback
// proxy that adds the access token; the service's PUBLIC_URL is that proxy, as behind any reverse
// proxy, so its Origin rules hold.
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
  /**
   * The CLI's extension scenarios (tagged `[extension]` by `list --server`), run one by one:
   * they are off the spec timeline, so `--suite all --spec-version …` never selects them, and the
   * server command has no extensions suite. Each runs at `args`' revision (hence `--force`).
   */
  extensions?: boolean;
}

export const SUITES: ConformanceSuite[] = [
  { name: "0.2.0-alpha.12 at 2026-07-28", cli: "node_modules/@modelcontextprotocol/conformance/dist/index.js", args: ["--spec-version", "2026-07-28"], baseline: "mcp-2026-07-28.yml" },
  { name: "0.2.0-alpha.12 at 2025-11-25", cli: "node_modules/@modelcontextprotocol/conformance/dist/index.js", args: ["--spec-version", "2025-11-25"], baseline: "mcp-2025-11-25.yml" },
  { name: "0.2.0-alpha.12 extensions at 2026-07-28", cli: "node_modules/@modelcontextprotocol/conformance/dist/index.js", args: ["--spec-version", "2026-07-28", "--force"], baseline: "mcp-extensions.yml", extensions: true },
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

/** Runs one suite's server scenarios (all of them, as --suite all lists them, or its extension scenarios) against `mcpUrl`. */
export async function runSuite(suite: ConformanceSuite, mcpUrl: string): Promise<SuiteResult> {
  // CONFORMANCE_RESULTS=<dir> keeps each scenario's checks.json there; otherwise they go with the run.
  const kept = process.env.CONFORMANCE_RESULTS;
  const outputDir = kept ? path.resolve(kept) : fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-conformance-"));
  fs.mkdirSync(outputDir, { recursive: true });
  try {
    if (suite.extensions) return await runExtensionScenarios(suite, mcpUrl, outputDir);
    const run = await runCli(suite, ["server", "--url", mcpUrl, "--suite", "all", ...suite.args, "--expected-failures", path.join(import.meta.dir, suite.baseline), "-o", outputDir], outputDir);
    return { suite, ...run, summary: run.output.split("\n").filter((line) => /^[✓✗] /.test(line)) };
  } finally {
    if (!kept) fs.rmSync(outputDir, { recursive: true, force: true });
  }
}

/**
 * The extension scenarios, each in its own CLI process (they are independent, so several run at
 * once), each judged against the baseline. The CLI prints no suite summary for a single
 * scenario, so the summary is made from each one's checks.json in the same form.
 */
async function runExtensionScenarios(suite: ConformanceSuite, mcpUrl: string, outputDir: string): Promise<SuiteResult> {
  const listed = await runCli(suite, ["list", "--server"], outputDir);
  const scenarios = [...listed.output.matchAll(/^\s+- (\S+) \[extension\]$/gm)].map((match) => match[1]!);
  const baseline = path.join(import.meta.dir, suite.baseline);
  // As many at a time as there are processors: each CLI process spends about a second of CPU on itself.
  const runs: { exitCode: number; output: string }[] = [];
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < scenarios.length; index = next++) {
      runs[index] = await runCli(suite, ["server", "--url", mcpUrl, "--scenario", scenarios[index]!, ...suite.args, "--expected-failures", baseline, "-o", outputDir], outputDir);
    }
  };
  await Promise.all(Array.from({ length: os.availableParallelism() }, worker));
  const summary = scenarios.map((scenario) => {
    const checks = checksOf(outputDir, scenario);
    const passed = checks.filter((check) => check.status === "SUCCESS").length;
    const failed = checks.filter((check) => check.status === "FAILURE").length;
    const skipped = checks.filter((check) => check.status === "SKIPPED").length;
    return `${failed > 0 ? "✗" : "✓"} ${scenario}: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`;
  });
  const failing = runs.filter((run) => run.exitCode !== 0);
  return {
    suite,
    // No scenario listed is a failure too: the CLI changed, and nothing was tested.
    exitCode: scenarios.length === 0 || failing.length > 0 ? 1 : 0,
    summary,
    // What went wrong, when something did: the failing scenarios' own reports (the list, if it was empty).
    output: (failing.length > 0 ? failing : [listed]).map((run) => run.output).join("\n"),
  };
}

async function runCli(suite: ConformanceSuite, args: string[], cwd: string): Promise<{ exitCode: number; output: string }> {
  const child = Bun.spawn([process.execPath, path.join(ROOT, suite.cli), ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { exitCode, output: `${stdout}\n${stderr}` };
}

/** The checks one scenario's last run saved (`-o`: a directory per run, `server-<scenario>-<time>`, kept ones included). */
function checksOf(outputDir: string, scenario: string): { id: string; status: string }[] {
  const prefix = `server-${scenario}-`;
  const last = fs.readdirSync(outputDir).filter((name) => name.startsWith(prefix) && /^\d{4}-/.test(name.slice(prefix.length))).sort().at(-1);
  const file = last && path.join(outputDir, last, "checks.json");
  return file && fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as { id: string; status: string }[]) : [];
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
