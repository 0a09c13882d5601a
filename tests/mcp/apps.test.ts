// The MCP Apps as a host meets them over MCP: the tools that name a UI in `_meta.ui.resourceUri`,
// and resources/read of each ui:// URI (the HTML, its MIME type and its `_meta.ui.csp`), on the
// wire as JSON-RPC under protocol revisions 2026-07-28 and 2025-11-25, and through the v2 client
// SDK. The apps themselves run in tests/viewer/mcp-apps.test.ts.
import { beforeAll, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { inlineSafe } from "../../src/mcp/apps/app-html";
import { ALL_SCOPES, createAccessToken } from "../support/access-tokens";
import { serverForThisFile } from "../support/server";

const { server, api } = await serverForThisFile();
const { api: alice } = await api.newUser("appsmcp");
let token: string;
const APPS = ["ui://rhizome/note", "ui://rhizome/graph"];

beforeAll(async () => {
  await alice.post("/api/notes", { title: "A note", content: "Some **text**." });
  token = await createAccessToken(alice, ALL_SCOPES);
});

async function connect(bearer: string): Promise<Client> {
  const client = new Client({ name: "rhizome-apps-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
  return client;
}

const REVISIONS = ["2026-07-28", "2025-11-25"] as const;

/**
 * One JSON-RPC request as it travels, without a session: under 2026-07-28 with the headers and the
 * `_meta` envelope that revision asks for, under 2025-11-25 as a stateless request after initialize.
 */
async function rpc(revision: (typeof REVISIONS)[number], method: string, params: Record<string, unknown>): Promise<any> {
  const modern = revision === "2026-07-28";
  const name = (params.name ?? params.uri) as string | undefined;
  const envelope = { "io.modelcontextprotocol/protocolVersion": revision, "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" } };
  const response = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": revision,
      ...(modern && { "mcp-method": method, ...(name !== undefined && { "mcp-name": name }) }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: modern ? { ...params, _meta: envelope } : params }),
  });
  expect(response.status).toBe(200);
  const body: any = await response.json();
  expect(body.error).toBeUndefined();
  return body;
}

/** Where `pattern` occurs in `text`, with a little around it (the whole HTML would drown a failure); null when nowhere. */
function found(text: string, pattern: RegExp): string | null {
  const match = pattern.exec(text);
  return match ? text.slice(Math.max(0, match.index - 60), match.index + 60) : null;
}

describe("tools/list", () => {
  for (const revision of REVISIONS) {
    test(`${revision}: get_note and search_notes name ui://rhizome/note, search_concepts and get_concept ui://rhizome/graph; no other tool names a UI`, async () => {
      const { result } = await rpc(revision, "tools/list", {});
      const named = Object.fromEntries(result.tools.filter((tool: any) => tool._meta?.ui).map((tool: any) => [tool.name, tool._meta]));
      const meta = (uri: string) => ({ ui: { resourceUri: uri }, "ui/resourceUri": uri });
      expect(named).toEqual({
        get_note: meta("ui://rhizome/note"),
        search_notes: meta("ui://rhizome/note"),
        search_concepts: meta("ui://rhizome/graph"),
        get_concept: meta("ui://rhizome/graph"),
      });
    });
  }

  test("the server names the extension among its capabilities", async () => {
    const client = await connect(token);
    expect(client.getServerCapabilities()?.extensions).toMatchObject({ "io.modelcontextprotocol/ui": {} });
    await client.close();
  });

  test("a host without the extension gets the same result as before: the operation's answer and its JSON", async () => {
    const client = await connect(token);
    const id = (await alice.get("/api/notes")).body.items[0].id;
    const result = (await client.callTool({ name: "get_note", arguments: { id } })) as any;
    await client.close();
    expect(result.structuredContent).toEqual((await alice.get(`/api/notes/${id}`)).body);
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    expect(result._meta?.ui).toBeUndefined(); // nothing of the apps in the result itself
  });
});

describe("resources/read of ui://", () => {
  for (const [uri, revision] of APPS.flatMap((uri) => REVISIONS.map((revision) => [uri, revision] as const))) {
    test(`${uri} (${revision}): one self-contained HTML document as text/html;profile=mcp-app, its CSP naming no origin`, async () => {
      const { result } = await rpc(revision, "resources/read", { uri });
      expect(result.contents).toHaveLength(1);
      const [content] = result.contents;
      expect(content.uri).toBe(uri);
      expect(content.mimeType).toBe("text/html;profile=mcp-app");
      expect(content._meta).toEqual({ ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true } });
      const html: string = content.text;
      expect(html).toStartWith("<!doctype html>");
      expect(found(html, /https?:\/\//i)).toBeNull(); // no address of any origin
      expect(found(html, /<script[^>]*\bsrc\s*=/i)).toBeNull(); // every script inline
      expect(found(html, /<link\b/i)).toBeNull(); // every style inline
      const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
      expect(found(style, /@import|url\(/i)).toBeNull(); // no stylesheet, font or picture from elsewhere
      expect(html.match(/<script\b[^>]*>/gi)).toEqual(['<script type="module">']);
      expect(html.match(/<\/script/gi)).toHaveLength(1);
      expect(html.match(/<style>/g)).toHaveLength(1);
    });
  }

  test("any token reads them (they hold no data); they stay out of resources/list; an unknown ui:// is not found", async () => {
    for (const scopes of [["graph:read"], ["notes:read"]]) {
      const client = await connect(await createAccessToken(alice, scopes));
      for (const uri of APPS) expect((await client.readResource({ uri })).contents[0]!.mimeType).toBe("text/html;profile=mcp-app");
      await client.close();
    }
    const client = await connect(token);
    const { resources } = await client.listResources();
    expect(resources.filter((resource) => resource.uri.startsWith("ui://"))).toEqual([]);
    await expect(client.readResource({ uri: "ui://rhizome/nothing" })).rejects.toThrow(/not found/i);
    await client.close();
  });
});

describe("inlineSafe", () => {
  test("rewrites addresses and script ends inside literals only, keeping every value", () => {
    const source = [
      `const a = "see https://example.com/x </script> <!-- y";`,
      "const b = /<!--x/;",
      "const c = `http://h/${a}`;",
      "const d = (() => { return`<!--${`https://n/${1 + 1}`}-->` })();",
      "const e = `${'</SCRIPT>'}` + 'ok';",
      "log(a, b.source, c, d, e);",
    ].join("\n");
    const safe = inlineSafe(source);
    expect(safe).not.toMatch(/https?:\/\/|<\/script|<!--/i);
    const values = (code: string): string[] => new Function(`const seen = []; const log = (...parts) => seen.push(...parts.map(String)); ${code}; return seen;`)();
    const [a, b, c, d, e] = values(safe);
    expect([a, c, d, e]).toEqual([values(source)[0]!, values(source)[2]!, values(source)[3]!, values(source)[4]!]);
    expect(new RegExp(b!).test("<!--x")).toBe(true);
  });

  test("refuses what it cannot rewrite without changing a value: a tagged template, a comment", () => {
    expect(() => inlineSafe("String.raw`https://example.com`;")).toThrow(/tagged template/);
    expect(() => inlineSafe("/* https://example.com */ let a = 1;")).toThrow(/outside a literal/);
  });
});
