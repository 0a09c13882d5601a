import { describe, expect, test } from "bun:test";
import { expectError } from "../support/api";
import { codeFor, pageLogin, pkcePair, postForm, registerClient } from "../support/oauth";
import { serverForThisFile } from "../support/server";

// The browser extension's grant (CONTRACT "Save from anywhere", "Connectors"): a public client
// whose redirect URI is the extension's (`https://<id>.chromiumapp.org/`), asking for the resource
// `<PUBLIC_URL>/api`. Its token works on the REST API and /trpc within its scopes, never at /mcp,
// and is listed, refreshed and revoked like a connector's. Driven at HTTP level: the extension's
// own run through launchWebAuthFlow is in tests/extension.

const { server, api } = await serverForThisFile();
const REDIRECT = "https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/";
const SCOPES = ["imports", "notes:read", "notes:write"];
const clientId: string = (await registerClient(server.url, [REDIRECT], { client_name: "Rhizome browser extension" })).body.client_id;

function clipperRequest(overrides: Record<string, string> = {}) {
  const { verifier, challenge } = pkcePair();
  const params = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "ext-state",
    scope: SCOPES.join(" "),
    resource: `${server.url}/api`,
    ...overrides,
  };
  return { params, verifier };
}

const token = (fields: Record<string, string>) => postForm(`${server.url}/oauth/token`, { client_id: clientId, ...fields });

/** Logs in, allows `scopes`, and trades the code for tokens naming `resource` at the token endpoint too. */
async function clipperGrant(user: { username: string; password: string }, scopes = SCOPES) {
  const { params, verifier } = clipperRequest();
  const { code, location } = await codeFor(server.url, params, user.username, user.password, scopes);
  expect(location.origin + location.pathname).toBe(REDIRECT);
  expect(location.searchParams.get("state")).toBe("ext-state");
  const exchanged = await token({ grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: REDIRECT, resource: `${server.url}/api` });
  expect(exchanged.status).toBe(200);
  return exchanged.body as { access_token: string; refresh_token: string; scope: string; expires_in: number };
}

function mcpStatus(accessToken: string) {
  return fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  }).then(async (response) => ({ status: response.status, body: await response.json().catch(() => null) }));
}

describe("the REST API as a protected resource", () => {
  test("its metadata (RFC 9728) names <PUBLIC_URL>/api and this authorization server", async () => {
    const response = await fetch(`${server.url}/.well-known/oauth-protected-resource/api`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      resource: `${server.url}/api`,
      authorization_servers: [server.url],
      scopes_supported: expect.arrayContaining(SCOPES),
      bearer_methods_supported: ["header"],
    });
    // /mcp's stays as it was.
    expect((await (await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)).json()).resource).toBe(`${server.url}/mcp`);
  });

  test("the consent page for it says the access is through the REST API", async () => {
    const user = await api.newUser("clipperpage");
    const { html } = await pageLogin(server.url, clipperRequest().params, user.username, user.password);
    expect(html).toContain("Allow Rhizome browser extension to use your notes?");
    expect(html).toContain("REST API");
    expect(html).not.toContain("MCP endpoint");
  });

  test("a resource of another server, or another path of this one, is refused on the page", async () => {
    for (const resource of ["https://other.example.com/api", `${server.url}/api/notes`, `${server.url}/trpc`]) {
      const response = await fetch(`${server.url}/oauth/authorize?${new URLSearchParams(clipperRequest({ resource }).params)}`, { redirect: "manual" });
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
      expect(await response.text()).toContain(`${server.url}/api`);
    }
  });
});

describe("a clipper grant", () => {
  test("works on the REST API and /trpc within its scopes, is a 401 at /mcp, and is listed as a clipper", async () => {
    const user = await api.newUser("clipper");
    const granted = await clipperGrant(user, ["imports", "notes:write"]);
    expect(granted.scope.split(" ").sort()).toEqual(["imports", "notes:write"]);
    expect(granted.expires_in).toBe(3600);
    const clipper = api.withToken(granted.access_token);

    const created = await clipper.post("/api/notes", { title: "Clipped", content: "> a quote", tags: ["clipped"] });
    expect(created.status).toBe(201);
    const task = await clipper.post("/api/tasks", { content: "Some pasted text from a page", url: "https://example.com/post" });
    expect(task.status).toBe(201);
    expect(task.body.platform).toBe("web");
    expect((await clipper.get(`/api/tasks/${task.body.id}`)).status).toBe(200);
    expect((await clipper.get("/api/auth/me")).body.username).toBe(user.username);
    // notes:read was not allowed: a 403 naming it, not a 401.
    const unread = await clipper.get("/api/notes");
    expectError(unread, 403, "FORBIDDEN");
    expect(unread.headers.get("www-authenticate")).toContain('scope="notes:read"');
    expect((await clipper.get("/trpc/tasks.list")).status).toBe(200);
    expect((await clipper.get("/trpc/notes.list")).status).toBe(403);

    const atMcp = await mcpStatus(granted.access_token);
    expect(atMcp.status).toBe(401);
    expect(atMcp.body.message).toContain("/api");

    const [listed] = (await user.api.get("/api/auth/tokens")).body.items;
    expect(listed).toMatchObject({ kind: "clipper", client_name: "Rhizome browser extension", name: "Rhizome browser extension" });
    expect(listed.scopes.sort()).toEqual(["imports", "notes:write"]);
    expect(listed.last_used_at).not.toBeNull();
  });

  test("refreshes like a connector's: rotated, the old access token stops, a reused refresh token revokes the grant", async () => {
    const user = await api.newUser("clipperrefresh");
    const first = await clipperGrant(user);
    const refreshed = await token({ grant_type: "refresh_token", refresh_token: first.refresh_token, resource: `${server.url}/api` });
    expect(refreshed.status).toBe(200);
    const second = refreshed.body;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.scope.split(" ").sort()).toEqual([...SCOPES].sort());
    expect((await api.withToken(second.access_token).get("/api/notes")).status).toBe(200);
    expect((await api.withToken(first.access_token).get("/api/notes")).status).toBe(401);
    expect((await user.api.get("/api/auth/tokens")).body.items).toHaveLength(1);

    // A refresh asking for the other resource is refused and changes nothing.
    const otherResource = await token({ grant_type: "refresh_token", refresh_token: second.refresh_token, resource: `${server.url}/mcp` });
    expect(otherResource.status).toBe(400);
    expect(otherResource.body.error).toBe("invalid_target");

    const reused = await token({ grant_type: "refresh_token", refresh_token: first.refresh_token });
    expect(reused.body.error).toBe("invalid_grant");
    expect((await api.withToken(second.access_token).get("/api/notes")).status).toBe(401);
    expect((await user.api.get("/api/auth/tokens")).body.items).toEqual([]);
  });

  test("DELETE /api/auth/tokens/{id} ends it and its refresh token; /oauth/revoke does too", async () => {
    const user = await api.newUser("clipperrevoke");
    const granted = await clipperGrant(user);
    const [listed] = (await user.api.get("/api/auth/tokens")).body.items;
    expect((await user.api.delete(`/api/auth/tokens/${listed.id}`)).status).toBe(204);
    expectError(await api.withToken(granted.access_token).get("/api/notes"), 401, "UNAUTHORIZED");
    expect((await token({ grant_type: "refresh_token", refresh_token: granted.refresh_token })).body.error).toBe("invalid_grant");

    const again = await clipperGrant(user);
    expect((await postForm(`${server.url}/oauth/revoke`, { token: again.access_token, client_id: clientId })).status).toBe(200);
    expect((await api.withToken(again.access_token).get("/api/notes")).status).toBe(401);
    expect((await user.api.get("/api/auth/tokens")).body.items).toEqual([]);
  });

  test("a code granted for /api cannot be exchanged for /mcp, nor a code for /mcp for /api", async () => {
    const user = await api.newUser("clippertarget");
    const forApi = clipperRequest();
    const apiCode = (await codeFor(server.url, forApi.params, user.username, user.password, SCOPES)).code;
    const asMcp = await token({ grant_type: "authorization_code", code: apiCode, code_verifier: forApi.verifier, redirect_uri: REDIRECT, resource: `${server.url}/mcp` });
    expect(asMcp.status).toBe(400);
    expect(asMcp.body.error).toBe("invalid_target");

    const forMcp = clipperRequest({ resource: `${server.url}/mcp` });
    const mcpCode = (await codeFor(server.url, forMcp.params, user.username, user.password, SCOPES)).code;
    const asApi = await token({ grant_type: "authorization_code", code: mcpCode, code_verifier: forMcp.verifier, redirect_uri: REDIRECT, resource: `${server.url}/api` });
    expect(asApi.body.error).toBe("invalid_target");
  });

  test("a connector's token (resource /mcp) stays a 401 on the API while a clipper's works there", async () => {
    const user = await api.newUser("clipperconnector");
    const forMcp = clipperRequest({ resource: `${server.url}/mcp` });
    const { code } = await codeFor(server.url, forMcp.params, user.username, user.password, SCOPES);
    const connector = (await token({ grant_type: "authorization_code", code, code_verifier: forMcp.verifier, redirect_uri: REDIRECT })).body;
    expectError(await api.withToken(connector.access_token).get("/api/notes"), 401, "UNAUTHORIZED");
    expect((await mcpStatus(connector.access_token)).status).toBe(200);
    const clipper = await clipperGrant(user);
    expect((await api.withToken(clipper.access_token).get("/api/notes")).status).toBe(200);
    expect((await mcpStatus(clipper.access_token)).status).toBe(401);
    const kinds = (await user.api.get("/api/auth/tokens")).body.items.map((item: { kind: string }) => item.kind).sort();
    expect(kinds).toEqual(["clipper", "connector"]);
  });
});
