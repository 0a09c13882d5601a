import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auth, extractResourceMetadataUrl, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { currentTotpStep, totpCodeAt } from "../../src/modules/auth/totp";
import { expectError } from "../support/api";
import { chromiumForThisFile, logIn, watchPage } from "../support/browser";
import { postForm } from "../support/oauth";
import { serverForThisFile } from "../support/server";

// A connector as claude.ai runs one, end to end: the MCP SDK's own client-side OAuth (`auth()` with
// an OAuthClientProvider) discovers, registers and exchanges; Chromium is the person's browser on
// the authorization page; a loopback listener receives the code.

const browser = await chromiumForThisFile();
const { server, api } = await serverForThisFile();
let callback: ReturnType<typeof Bun.serve>;
const received: URL[] = [];

beforeAll(async () => {
  callback = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      if (url.pathname === "/callback") received.push(url);
      return new Response("<!doctype html><title>Connected</title><p>You can close this window.</p>", { headers: { "content-type": "text/html" } });
    },
  });
});
afterAll(async () => {
  callback?.stop(true);
});

/** What an agent keeps between steps, as an OAuthClientProvider. */
class TestProvider implements OAuthClientProvider {
  information?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  authorizationUrl?: URL;
  readonly expectedState = crypto.randomUUID();
  get redirectUrl() {
    return `http://127.0.0.1:${callback.port}/callback`;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "Test Agent", redirect_uris: [this.redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  state() {
    return this.expectedState;
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier!;
  }
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: "connector-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

function mcpStatus(token: string) {
  return fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  }).then((response) => response.status);
}

/**
 * The person's part in the browser: log in (and give the code), untick what the agent should not
 * have, Allow; returns the code the redirect brought to the loopback listener.
 */
async function consentInBrowser(url: URL, user: { username: string; password: string; totpSecret?: string }, untick: string[]): Promise<string> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const watch = watchPage(page);
  try {
    const before = received.length;
    const response = await page.goto(url.href);
    expect(response!.status()).toBe(200);
    expect(response!.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    await logIn(page, user);
    if (user.totpSecret) {
      await page.getByLabel("Code").fill(totpCodeAt(user.totpSecret));
      await page.getByRole("button", { name: "Verify" }).click();
    }
    await page.getByRole("button", { name: "Allow" }).waitFor();
    expect(await page.getByText("Test Agent").first().isVisible()).toBe(true);
    for (const scope of untick) await page.getByLabel(new RegExp(`^${scope} — `)).uncheck();
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((target) => target.port === String(callback.port));
    expect(received.length).toBe(before + 1);
    // Everything the page loaded came from this service.
    expect(watch.requests.filter((request) => !request.startsWith(server.url) && !request.startsWith(`http://127.0.0.1:${callback.port}`))).toEqual([]);
    expect(watch.errors).toEqual([]);
    const redirect = received.at(-1)!;
    expect(redirect.searchParams.get("iss")).toBe(server.url);
    return redirect.searchParams.get("code")!;
  } finally {
    await context.close();
  }
}

describe("a connector, from a bare 401 to tools, refresh and reuse detection", () => {
  test("discovers, registers, is granted fewer scopes than asked, lists and calls tools, refreshes, and a reused refresh token revokes the grant", async () => {
    const { api: alice, username, password } = await api.newUser("oauthalice");
    await alice.post("/api/notes", { title: "Connector note", content: "Reached from an agent" });

    // 1. A bare POST /mcp: 401 pointing at the protected resource metadata.
    const bare = await fetch(`${server.url}/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toContain(`resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`);
    const resourceMetadataUrl = extractResourceMetadataUrl(bare)!;

    // 2. Discovery and registration, then the authorization URL.
    const provider = new TestProvider();
    const serverUrl = `${server.url}/mcp`;
    expect(await auth(provider, { serverUrl, resourceMetadataUrl })).toBe("REDIRECT");
    expect(provider.information?.client_id).toStartWith("rhzc_");
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl.searchParams.get("resource")).toBe(serverUrl);
    expect(authorizationUrl.searchParams.get("scope")?.split(" ")).toContain("notes:write");

    // 3. The person logs in and allows fewer scopes than asked.
    const untick = ["notes:write", "imports", "graph:read", "graph:write", "ask", "webhooks"];
    const code = await consentInBrowser(authorizationUrl, { username, password }, untick);
    expect(received.at(-1)!.searchParams.get("state")).toBe(provider.expectedState);

    // 4. The code for tokens.
    expect(await auth(provider, { serverUrl, resourceMetadataUrl, authorizationCode: code })).toBe("AUTHORIZED");
    const first = provider.saved!;
    expect(first.token_type).toBe("Bearer");
    expect(first.expires_in).toBe(3600);
    expect(first.scope).toBe("notes:read");
    expect(first.refresh_token).toBeString();

    // 5. Only the granted scope's tools; one called.
    const client = await connect(first.access_token);
    const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
    expect(names).toEqual(["fetch", "get_note", "list_notes", "list_tags", "list_versions", "related_notes", "search", "search_notes", "whoami"]);
    const listed = (await client.callTool({ name: "list_notes", arguments: {} })) as CallToolResult;
    expect(listed.isError ?? false).toBe(false);
    expect((listed.structuredContent as any).items.map((note: any) => note.title)).toEqual(["Connector note"]);
    const refused = (await client.callTool({ name: "create_note", arguments: { title: "x", content: "y" } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    await client.close();

    // The grant is listed with the access tokens; the token is refused off /mcp.
    const tokens = (await alice.get("/api/auth/tokens")).body.items;
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatchObject({ kind: "connector", client_name: "Test Agent", scopes: ["notes:read"] });
    expectError(await api.withToken(first.access_token).get("/api/notes"), 401, "UNAUTHORIZED");

    // 6. Refresh: new tokens, the old access token stops.
    expect(await auth(provider, { serverUrl, resourceMetadataUrl })).toBe("AUTHORIZED");
    const second = provider.saved!;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await mcpStatus(second.access_token)).toBe(200);
    expect(await mcpStatus(first.access_token)).toBe(401);

    // 7. The first refresh token again: reuse, so the whole grant is revoked.
    const reused = await postForm(`${server.url}/oauth/token`, { grant_type: "refresh_token", refresh_token: first.refresh_token!, client_id: provider.information!.client_id });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe("invalid_grant");
    expect(await mcpStatus(second.access_token)).toBe(401);
    const afterReuse = await postForm(`${server.url}/oauth/token`, { grant_type: "refresh_token", refresh_token: second.refresh_token!, client_id: provider.information!.client_id });
    expect(afterReuse.body.error).toBe("invalid_grant");
    expect((await alice.get("/api/auth/tokens")).body.items).toEqual([]);
  });

  test("an account with TOTP gives its code on the page; revoking the grant with the access tokens ends its refresh token too", async () => {
    const { api: bob, username, password } = await api.newUser("oauthbob");
    const setup = await bob.post("/api/auth/totp/setup");
    // Enrolled with the previous step's code, so the page's current code is a fresh step.
    const { totpCodeAt: codeAt } = await import("../../src/modules/auth/totp");
    const enabled = await bob.post("/api/auth/totp/enable", { code: codeAt(setup.body.secret, (currentTotpStep() - 1) * 30_000 + 1) });
    expect(enabled.status).toBe(200);

    const provider = new TestProvider();
    const serverUrl = `${server.url}/mcp`;
    expect(await auth(provider, { serverUrl })).toBe("REDIRECT");
    const code = await consentInBrowser(provider.authorizationUrl!, { username, password, totpSecret: setup.body.secret }, ["webhooks"]);
    expect(await auth(provider, { serverUrl, authorizationCode: code })).toBe("AUTHORIZED");
    const tokens = provider.saved!;
    expect(tokens.scope!.split(" ")).not.toContain("webhooks");
    expect(await mcpStatus(tokens.access_token)).toBe(200);

    const [grant] = (await bob.get("/api/auth/tokens")).body.items;
    expect((await bob.delete(`/api/auth/tokens/${grant.id}`)).status).toBe(204);
    expect(await mcpStatus(tokens.access_token)).toBe(401);
    const refreshed = await postForm(`${server.url}/oauth/token`, { grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: provider.information!.client_id });
    expect(refreshed.body.error).toBe("invalid_grant");
  });
});
