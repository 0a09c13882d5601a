import { afterAll, expect, test } from "bun:test";
import { runSuite, startBearerProxy, SUITES } from "../../scripts/conformance/mcp";
import { ALL_SCOPES, createAccessToken } from "../support/access-tokens";
import { serverForThisFile } from "../support/server";

// The official conformance suites' server scenarios against /mcp (as `npm run conformance:mcp`
// runs them, the extension scenarios — the Tasks extension's — among them): every scenario passes
// except those each baseline names, which need the reference server's test tools, prompts or
// resources, or sessions. A baseline entry that starts passing
// fails the run too, so the baselines stay honest.

let token = "";
let serviceUrl = "";
const proxy = startBearerProxy(() => serviceUrl, () => token);
afterAll(() => proxy.stop());
// The proxy is the service's public address, as behind any reverse proxy: its origin is the service's own.
const { server, api } = await serverForThisFile({ PUBLIC_URL: proxy.url });
serviceUrl = server.url;
const { api: user } = await api.newUser("conformance");
token = await createAccessToken(user, ALL_SCOPES);
await user.post("/api/notes", { title: "A note", content: "Listed as a resource." });

for (const suite of SUITES) {
  test(`conformance ${suite.name}: every applicable scenario passes`, async () => {
    const result = await runSuite(suite, `${proxy.url}/mcp`);
    expect({ exitCode: result.exitCode, output: result.exitCode === 0 ? "" : result.output.slice(-4000) }).toEqual({ exitCode: 0, output: "" });
    if (!suite.extensions) expect(result.summary.length).toBeGreaterThan(20);
    // The extension suite ran the Tasks extension's scenarios, not only the skills' (which skip).
    else expect(result.summary.filter((line) => /^[✓✗] tasks-/.test(line)).length).toBeGreaterThanOrEqual(10);
  }, 60_000);
}
