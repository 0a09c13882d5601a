// The MCP Apps in real headless Chromium, hosted as a conversation's host hosts them (ext-apps'
// AppBridge, the app in a sandboxed frame under the CSP built from its `_meta.ui.csp`): each app's
// HTML read over MCP from a real service, handed the REAL result of get_note, search_notes,
// get_concept or search_concepts. The note is drawn and its hostile HTML stays text; a hit, a
// [[link]] and a neighbour in the graph each make the app ask the host for a tools/call; and no
// request leaves the frame, no error reaches the console, in light or dark.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport, type CallToolResult, type Tool } from "@modelcontextprotocol/client";
import { createAccessToken } from "../support/access-tokens";
import { awaitBuild } from "../support/await-build";
import { pixelVariety } from "../support/browser";
import { chromiumForAppHosts, openAppHost, type AppHost } from "../support/mcp-app-page";
import { serverForThisFile } from "../support/server";
import { until } from "../support/until";

const browser = await chromiumForAppHosts(); // first: without Chromium, fail at once and start nothing
const { server, api } = await serverForThisFile();
const decoder = await browser.newPage();
const { api: alice } = await api.newUser("appsalice");

const HOSTILE = `<img src="x" onerror="document.title='pwned'"> <script>document.title="pwned"</script>`;
const NOTES = [
  {
    title: "Anchoring effect",
    content: `# Anchoring\n\nThe **anchoring effect** biases estimates toward a [first number](https://example.com/anchor). See [[Daniel Kahneman]].\n\n${HOSTILE}\n\n- one\n- two\n\n![a chart](/api/files/1)`,
    tags: ["psychology"],
  },
  { title: "Daniel Kahneman", content: "Daniel Kahneman wrote about the anchoring effect and loss aversion.", tags: [] },
  { title: "Learning plan", content: "Study [[Machine Learning]] with [[Andrew Ng]].\n\nThen read about [[Neural Networks]].", tags: ["study"] },
  { title: "Course notes", content: "The course says [[Machine Learning]] needs [[Linear Algebra]].\n\n[[Gradient Descent]] **minimises** loss.", tags: ["study"] },
];
const ids = new Map<string, number>();
let client: Client;
let tools: Map<string, Tool>;

beforeAll(async () => {
  for (const note of NOTES) ids.set(note.title, (await alice.post("/api/notes", note)).body.id);
  expect((await alice.post("/api/knowledge-graph/build", { mode: "incremental" })).status).toBe(202);
  expect((await awaitBuild(alice)).status.status).toBe("completed");
  const token = await createAccessToken(alice, ["notes:read", "graph:read"]);
  // The v2 client SDK on protocol revision 2026-07-28, as a host's MCP client would be.
  client = new Client({ name: "rhizome-apps-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError ?? false).toBe(false);
  return result;
}

/** The app a tool names, read over MCP as a host reads it. */
async function appOf(toolName: string) {
  const uri = (tools.get(toolName)!._meta as { ui: { resourceUri: string } }).ui.resourceUri;
  const [contents] = (await client.readResource({ uri })).contents as unknown as { text: string; _meta: { ui: { csp: Record<string, string[]> } } }[];
  return { html: contents!.text, csp: contents!._meta.ui.csp };
}

const hosts: AppHost[] = [];
async function host(options: { noWebgl?: boolean } = {}): Promise<AppHost> {
  const opened = await openAppHost(browser, (name, args) => client.callTool({ name, arguments: args }), options);
  hosts.push(opened);
  return opened;
}

/** Shows a tool's real result in the app the tool names. */
async function showResult(opened: AppHost, toolName: string, args: Record<string, unknown>, theme: "light" | "dark" = "light") {
  const result = await call(toolName, args);
  await opened.show({ ...(await appOf(toolName)), theme, args, result: result as unknown as Record<string, unknown> });
  return result;
}

// After every test: nothing left the page or the frame, and the console stayed free of errors.
afterEach(async () => {
  for (const opened of hosts.splice(0)) {
    await opened.close();
    expect(opened.refused).toEqual([]);
    expect(opened.watch.requests.filter((url) => !/^(about|data):/.test(url))).toEqual([]);
    expect(opened.watch.errors).toEqual([]);
  }
});

const lastCall = (opened: AppHost) => opened.toolCalls.at(-1);

test("the host sees what a frame logs and requests (so the checks after each test can fail)", async () => {
  const opened = await host();
  const html = `<!doctype html><html><head></head><body><script>console.error("seen"); fetch("https://example.com/x").catch(() => {});</script></body></html>`;
  await opened.show({ html, csp: { connectDomains: ["https://example.com"] }, theme: "light", args: {}, result: { content: [] } });
  // Its console error, its request refused, and the console error the refusal makes.
  const errors = () => opened.watch.errors.map((error) => error.text);
  await until(() => opened.refused.length > 0 && errors().includes("seen") && errors().some((text) => text.includes("Failed to load resource")), {
    what: "the frame's request and errors to be seen",
  });
  expect(opened.refused).toEqual(["https://example.com/x"]);
  opened.refused.length = 0;
  opened.watch.errors.length = 0;
  opened.watch.requests.length = 0;
});

describe("ui://rhizome/note", () => {
  test("draws get_note's note: its title, tags and rendered Markdown; hostile HTML stays text, runs nothing, loads nothing", async () => {
    const opened = await host();
    await showResult(opened, "get_note", { id: ids.get("Anchoring effect") });
    const { app } = opened;
    await app.getByRole("heading", { level: 1, name: "Anchoring effect" }).waitFor();
    expect(await app.locator(".tags").textContent()).toBe("Tags: psychology");
    expect(await app.locator(".note-body h3").textContent()).toBe("Anchoring");
    expect(await app.locator(".note-body strong").first().textContent()).toBe("anchoring effect");
    expect(await app.locator(".note-body li").allTextContents()).toEqual(["one", "two"]);
    const body = (await app.locator(".note-body").textContent())!;
    expect(body).toContain(`<img src="x" onerror=`);
    expect(body).toContain(`<script>document.title="pwned"</script>`);
    expect(body).toContain("[image: a chart]");
    expect(await app.locator("img, script, iframe, object").count()).toBe(0);
    const frame = opened.page.frames().find((candidate) => candidate !== opened.page.mainFrame())!;
    expect(await frame.title()).toBe("Rhizome: a note");
  });

  test("a web link is opened by the host, and a [[link]] finds its note through the host's tools/call", async () => {
    const opened = await host();
    await showResult(opened, "get_note", { id: ids.get("Anchoring effect") });
    const { app } = opened;
    await app.getByRole("link", { name: "first number" }).click();
    await until(async () => opened.openedLinks.length, { what: "the host to be asked to open the link", done: (count) => count > 0 });
    expect(opened.openedLinks).toEqual(["https://example.com/anchor"]);
    await app.getByRole("link", { name: "Daniel Kahneman" }).click();
    await app.getByRole("heading", { level: 1, name: "Daniel Kahneman" }).waitFor();
    expect(opened.toolCalls).toEqual([
      { name: "search_notes", args: { q: '"Daniel Kahneman"', size: 50 } },
      { name: "get_note", args: { id: ids.get("Daniel Kahneman") } },
    ]);
  });

  test("lists search_notes' hits with their marked snippets; a hit opens its note through tools/call, Back returns", async () => {
    const opened = await host();
    const result = await showResult(opened, "search_notes", { q: "anchoring" });
    const { app } = opened;
    const total = (result.structuredContent as { total: number }).total;
    await app.getByRole("heading", { level: 1, name: `${total} notes for “anchoring”` }).waitFor();
    const hits = app.getByRole("list", { name: "Notes found" }).getByRole("button");
    expect(await hits.count()).toBe(total);
    expect(await app.locator("mark").count()).toBeGreaterThan(0);
    await hits.filter({ has: app.locator("strong", { hasText: /^Daniel Kahneman$/ }) }).click();
    await app.getByRole("heading", { level: 1, name: "Daniel Kahneman" }).waitFor();
    expect(lastCall(opened)).toEqual({ name: "get_note", args: { id: ids.get("Daniel Kahneman") } });
    await app.getByRole("button", { name: "Back to the results" }).click();
    await app.getByRole("list", { name: "Notes found" }).waitFor();
  });
});

describe("ui://rhizome/graph", () => {
  async function concept(label: string) {
    const found = (await call("search_concepts", { q: label })).structuredContent as { nodes: { id: number; label: string }[] };
    const node = found.nodes.find((candidate) => candidate.label === label);
    expect(node).toBeDefined();
    return node!;
  }

  test("draws get_concept's neighbourhood; a neighbour clicked asks the host for get_concept, and its neighbourhood is drawn", async () => {
    const opened = await host();
    const learning = await concept("Machine Learning");
    const detail = (await showResult(opened, "get_concept", { id: learning.id })).structuredContent as { neighbours: { id: number; label: string }[] };
    expect(detail.neighbours.length).toBeGreaterThan(1);
    const { app } = opened;
    await app.locator(`.graph[data-centre="${learning.id}"]`).waitFor();
    expect(await app.locator(".graph").getAttribute("data-drawn")).toBe(String(1 + detail.neighbours.length));
    expect(await app.getByRole("heading", { level: 2 }).textContent()).toBe("Machine Learning");
    const drawn = await pixelVariety(app.locator(".graph"), decoder);
    expect(drawn.colours).toBeGreaterThan(10);

    const neighbour = detail.neighbours[0]!;
    await app.getByRole("list", { name: "Related concepts" }).getByRole("button", { name: neighbour.label, exact: true }).click();
    await app.locator(`.graph[data-centre="${neighbour.id}"]`).waitFor();
    expect(lastCall(opened)).toEqual({ name: "get_concept", args: { id: neighbour.id } });
    expect(await app.getByRole("heading", { level: 2 }).textContent()).toBe(neighbour.label);
  });

  test("a note that mentions the concept opens through get_note; Back returns to the concept", async () => {
    const opened = await host();
    const learning = await concept("Machine Learning");
    await showResult(opened, "get_concept", { id: learning.id });
    const { app } = opened;
    await app.getByRole("list", { name: "Notes" }).getByRole("button", { name: "Learning plan" }).click();
    await app.getByRole("heading", { level: 1, name: "Learning plan" }).waitFor();
    expect(lastCall(opened)).toEqual({ name: "get_note", args: { id: ids.get("Learning plan") } });
    await app.getByRole("button", { name: "Back to Machine Learning" }).click();
    await app.getByRole("heading", { level: 2, name: "Machine Learning" }).waitFor();
  });

  test("without WebGL the drawing is left out and the lists still ask for get_concept", async () => {
    const opened = await host({ noWebgl: true });
    const learning = await concept("Machine Learning");
    const detail = (await showResult(opened, "get_concept", { id: learning.id })).structuredContent as { neighbours: { id: number; label: string }[] };
    const { app } = opened;
    await app.getByRole("heading", { level: 2, name: "Machine Learning" }).waitFor();
    expect(await app.locator(".graph").isHidden()).toBe(true);
    const neighbour = detail.neighbours[0]!;
    await app.getByRole("list", { name: "Related concepts" }).getByRole("button", { name: neighbour.label, exact: true }).click();
    await app.getByRole("heading", { level: 2, name: neighbour.label }).waitFor();
    expect(lastCall(opened)).toEqual({ name: "get_concept", args: { id: neighbour.id } });
  });

  test("draws search_concepts' concepts and lists them; one clicked asks the host for get_concept", async () => {
    const opened = await host();
    const result = await showResult(opened, "search_concepts", { q: "learning" });
    const nodes = (result.structuredContent as { nodes: { id: number; label: string }[] }).nodes;
    expect(nodes.length).toBeGreaterThan(0);
    const { app } = opened;
    await app.locator(`.graph[data-drawn="${nodes.length}"]`).waitFor();
    const found = app.getByRole("list", { name: "Concepts found" }).getByRole("button");
    expect(await found.allTextContents()).toEqual(nodes.map((node) => node.label));
    await found.first().click();
    await app.locator(`.graph[data-centre="${nodes[0]!.id}"]`).waitFor();
    expect(lastCall(opened)).toEqual({ name: "get_concept", args: { id: nodes[0]!.id } });
  });
});

describe("the host's theme", () => {
  /** Relative luminance (0 black, 1 white) of a computed `rgb(...)` colour. */
  const luminance = (colour: string) => {
    const [red, green, blue] = colour.match(/[\d.]+/g)!.slice(0, 3).map(Number) as [number, number, number];
    return (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255;
  };
  const colours = (opened: AppHost) =>
    opened.app.locator("html").evaluate(() => ({ background: getComputedStyle(document.documentElement).backgroundColor, text: getComputedStyle(document.body).color }));

  for (const theme of ["light", "dark"] as const) {
    test(`both apps are readable in ${theme}: text and background far apart, the way the host's theme says`, async () => {
      const opened = await host();
      await showResult(opened, "get_note", { id: ids.get("Anchoring effect") }, theme);
      await opened.app.getByRole("heading", { level: 1, name: "Anchoring effect" }).waitFor();
      const note = await colours(opened);
      const learning = (await call("search_concepts", { q: "Machine Learning" })).structuredContent as { nodes: { id: number }[] };
      await showResult(opened, "get_concept", { id: learning.nodes[0]!.id }, theme);
      await opened.app.locator(".graph[data-centre]").waitFor();
      const graph = await colours(opened);
      for (const { background, text } of [note, graph]) {
        expect(Math.abs(luminance(background) - luminance(text))).toBeGreaterThan(0.6);
        if (theme === "dark") expect(luminance(background)).toBeLessThan(0.2);
        else expect(luminance(background)).toBeGreaterThan(0.8);
      }
    });
  }
});
