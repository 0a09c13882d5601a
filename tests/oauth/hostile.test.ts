import { describe, expect, test } from "bun:test";
import { Api, expectError } from "../support/api";
import { codeFor, csrfOf, loginForm, pageLogin, pkcePair, postForm, registerClient } from "../support/oauth";
import { serverForThisFile, startTestServer } from "../support/server";

// The authorization server against clients and pages that misbehave: every case a clear answer,
// never a redirect to an untrusted URI, never a 500.

const { server, api } = await serverForThisFile();
const user = await api.newUser("oauthhostile");
const REDIRECT = "http://127.0.0.1:9/callback";
const clientId: string = (await registerClient(server.url, [REDIRECT])).body.client_id;
const otherClientId: string = (await registerClient(server.url, ["https://other.example.com/cb"])).body.client_id;

function authorizeRequest(overrides: Record<string, string | null> = {}): { params: Record<string, string>; verifier: string } {
  const { verifier, challenge } = pkcePair();
  const all: Record<string, string | null> = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st-123",
    scope: "notes:read notes:write",
    resource: `${server.url}/mcp`,
    ...overrides,
  };
  return { params: Object.fromEntries(Object.entries(all).filter(([, value]) => value !== null)) as Record<string, string>, verifier };
}

/** The issuer the authorization server's RFC 8414 metadata names; RFC 9207's `iss` must equal it. */
async function metadataIssuer(): Promise<string> {
  const metadata = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as { issuer: string };
  return metadata.issuer;
}

async function authorizePage(params: Record<string, string>) {
  const response = await fetch(`${server.url}/oauth/authorize?${new URLSearchParams(params)}`, { redirect: "manual" });
  return { status: response.status, location: response.headers.get("location"), text: await response.text(), headers: response.headers };
}

/** How many page logins (live or not) the user has on the authorization page. */
async function pageLogins(username: string): Promise<number> {
  const client = server.openNotesClient();
  try {
    return Number((await client.execute("select count(*) as n from oauth_logins where user_id = (select id from users where username = ?)", [username])).rows[0]!.n);
  } finally {
    client.close();
  }
}

/** What /mcp answers `tools/list` with this bearer token: 200, or 401 once it is refused. */
async function mcpStatus(token: string): Promise<number> {
  const response = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  await response.body?.cancel();
  return response.status;
}

function exchange(fields: Record<string, string>) {
  return postForm(`${server.url}/oauth/token`, { grant_type: "authorization_code", redirect_uri: REDIRECT, client_id: clientId, ...fields });
}

describe("metadata", () => {
  test("protected resource and authorization server metadata name this server and its endpoints", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const body = await (await fetch(server.url + path)).json();
      expect(body).toMatchObject({ resource: `${server.url}/mcp`, authorization_servers: [server.url], bearer_methods_supported: ["header"] });
      expect(body.scopes_supported).toContain("notes:read");
    }
    const metadata = await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json();
    expect(metadata).toMatchObject({
      issuer: server.url,
      authorization_endpoint: `${server.url}/oauth/authorize`,
      token_endpoint: `${server.url}/oauth/token`,
      registration_endpoint: `${server.url}/oauth/register`,
      revocation_endpoint: `${server.url}/oauth/revoke`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      client_id_metadata_document_supported: true,
    });
  });
});

describe("the authorization page refuses, on the page, what it cannot trust", () => {
  test("no PKCE, or plain PKCE: 400 on the page, no redirect", async () => {
    const cases: Record<string, string | null>[] = [{ code_challenge: null, code_challenge_method: null }, { code_challenge_method: "plain" }, { code_challenge_method: null }];
    for (const overrides of cases) {
      const page = await authorizePage(authorizeRequest(overrides).params);
      expect(page.status).toBe(400);
      expect(page.location).toBeNull();
      expect(page.text).toMatch(/PKCE|S256/);
    }
  });

  test("a redirect URI not registered is shown on the page, not redirected to", async () => {
    const page = await authorizePage(authorizeRequest({ redirect_uri: "https://evil.example.com/steal" }).params);
    expect(page.status).toBe(400);
    expect(page.location).toBeNull();
    expect(page.text).toContain("https://evil.example.com/steal is not registered");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("content-security-policy")).not.toContain("evil.example.com");
  });

  test("a loopback redirect URI may use another port; an unknown client is refused", async () => {
    expect((await authorizePage(authorizeRequest({ redirect_uri: "http://127.0.0.1:54321/callback" }).params)).status).toBe(200);
    const unknown = await authorizePage(authorizeRequest({ client_id: "rhzc_nobody" }).params);
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain("not registered");
  });

  test("a resource for another server is refused on the page, and at the token endpoint", async () => {
    const page = await authorizePage(authorizeRequest({ resource: "https://other.example.com/mcp" }).params);
    expect(page.status).toBe(400);
    expect(page.location).toBeNull();
    const { params, verifier } = authorizeRequest();
    const { code } = await codeFor(server.url, params, user.username, user.password, ["notes:read"]);
    const response = await exchange({ code, code_verifier: verifier, resource: "https://other.example.com/mcp" });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe("invalid_target");
  });

  test("a client metadata document on a private address is refused without connecting", async () => {
    // Tests resolve every name to 127.0.0.1 (IMPORT_RESOLVE): the import rules refuse it.
    const page = await authorizePage(authorizeRequest({ client_id: "https://client.example.test/oauth/client.json", redirect_uri: "https://client.example.test/cb" }).params);
    expect(page.status).toBe(400);
    expect(page.location).toBeNull();
    expect(page.text).toContain("could not be fetched");
    expect(page.text).toContain("loopback");
  });

  test("errors after the redirect URI is trusted go back to the client, with state", async () => {
    const page = await authorizePage(authorizeRequest({ response_type: "token" }).params);
    expect(page.status).toBe(303);
    const location = new URL(page.location!);
    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(location.searchParams.get("error")).toBe("unsupported_response_type");
    expect(location.searchParams.get("state")).toBe("st-123");
    // RFC 9207: every authorization response names the issuer, exactly as the metadata's `issuer`.
    expect(location.searchParams.get("iss")).toBe(await metadataIssuer());
    const unknownScope = new URL((await authorizePage(authorizeRequest({ scope: "nothing:real" }).params)).location!);
    expect(unknownScope.searchParams.get("error")).toBe("invalid_scope");
    expect(unknownScope.searchParams.get("iss")).toBe(await metadataIssuer());
  });
});

describe("login and consent on the page", () => {
  test("the consent form without the right CSRF token issues nothing", async () => {
    const person = await api.newUser("oauthcsrf");
    const { params } = authorizeRequest();
    const { cookie, csrf } = await pageLogin(server.url, params, person.username, person.password);
    for (const token of [null, "wrong", csrf.slice(0, -1) + (csrf.endsWith("A") ? "B" : "A")]) {
      const fields: Record<string, string | string[]> = { ...params, step: "consent", decision: "allow", allow_scope: ["notes:read"] };
      if (token !== null) fields.csrf_token = token;
      const response = await postForm(`${server.url}/oauth/authorize`, fields, { cookie });
      expect(response.status).toBe(403);
      expect(response.headers.get("location")).toBeNull();
      expect(response.text).toContain("nothing was granted");
    }
    // Nor does the right token without the login it is bound to.
    const detached = await postForm(`${server.url}/oauth/authorize`, { ...params, step: "consent", decision: "allow", allow_scope: "notes:read", csrf_token: csrf });
    expect(detached.headers.get("location")).toBeNull();
    // A POST from another site is refused before anything.
    const crossSite = await postForm(`${server.url}/oauth/authorize`, { ...params, step: "consent", decision: "allow", csrf_token: csrf }, { cookie, origin: "https://evil.example.com" });
    expect(crossSite.status).toBe(403);
    const client = server.openNotesClient();
    try {
      expect((await client.execute("select count(*) as n from oauth_codes where user_id = (select id from users where username = ?)", [person.username])).rows[0]!.n).toBe(0);
    } finally {
      client.close();
    }
  });

  test("the login form without the right CSRF token (bound to the page's cookie) logs no one in", async () => {
    const person = await api.newUser("oauthlogincsrf");
    const { params } = authorizeRequest();
    const mine = await loginForm(server.url, params);
    const other = await loginForm(server.url, params);
    expect(other.csrf).not.toBe(mine.csrf);
    const attempts: { token: string | null; cookie?: string }[] = [
      { token: null, cookie: mine.cookie },
      { token: "wrong", cookie: mine.cookie },
      { token: mine.csrf.slice(0, -1) + (mine.csrf.endsWith("A") ? "B" : "A"), cookie: mine.cookie },
      // A token another site fetched for itself, with this browser's own cookie or none at all.
      { token: other.csrf, cookie: mine.cookie },
      { token: mine.csrf },
    ];
    for (const { token, cookie } of attempts) {
      const fields: Record<string, string> = { ...params, step: "login", username: person.username, password: person.password };
      if (token !== null) fields.csrf_token = token;
      const response = await postForm(`${server.url}/oauth/authorize`, fields, cookie ? { cookie, origin: server.url } : { origin: server.url });
      expect(response.status).toBe(403);
      expect(response.text).toContain("you were not logged in");
      expect(response.headers.get("set-cookie")).not.toContain("rhizome_oauth_login=");
      // A fresh form to log in with, whose token is the cookie's.
      expect(response.headers.get("set-cookie")).toContain(`=${csrfOf(response.text)};`);
    }
    expect(await pageLogins(person.username)).toBe(0);
    // The right pair, as this server's own page sends it, logs in.
    const ok = await postForm(`${server.url}/oauth/authorize`, { ...params, step: "login", csrf_token: mine.csrf, username: person.username, password: person.password }, { cookie: mine.cookie, origin: server.url });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain("Allow");
    expect(ok.headers.get("set-cookie")).toContain("rhizome_oauth_login=");
    expect(await pageLogins(person.username)).toBe(1);
  });

  test("the login page's CSRF cookie is HttpOnly and SameSite; the page's own forms send their Origin", async () => {
    const { params } = authorizeRequest();
    const page = await authorizePage(params);
    const setCookie = page.headers.get("set-cookie")!;
    expect(setCookie).toStartWith(`rhizome_oauth_csrf=${csrfOf(page.text)};`);
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toMatch(/SameSite=(Strict|Lax)/);
    // Under `no-referrer` a browser would send the page's own POSTs with `Origin: null`.
    expect(page.headers.get("referrer-policy")).toBe("same-origin");
    expect(page.text).toContain('<meta name="referrer" content="same-origin">');
  });

  test("behind https (PUBLIC_URL), the page's cookies are __Host- and Secure, and only those are read", async () => {
    const publicUrl = "https://notes.example.com";
    const secure = await startTestServer({ PUBLIC_URL: publicUrl });
    try {
      const person = await new Api(secure.url).newUser("oauthhttps");
      const client = (await registerClient(secure.url, [REDIRECT])).body.client_id;
      const params = { ...authorizeRequest({ client_id: client, resource: `${publicUrl}/mcp` }).params };
      const form = await loginForm(secure.url, params);
      expect(form.setCookie).toStartWith(`__Host-rhizome_oauth_csrf=${form.csrf}; Path=/; Secure; HttpOnly; SameSite=Strict`);
      const own = { origin: publicUrl };
      // The same token in an unprefixed cookie (what a sibling host could plant) is not the page's.
      const planted = await postForm(`${secure.url}/oauth/authorize`, { ...params, step: "login", csrf_token: form.csrf, username: person.username, password: person.password }, { ...own, cookie: `rhizome_oauth_csrf=${form.csrf}` });
      expect(planted.status).toBe(403);
      const login = await postForm(`${secure.url}/oauth/authorize`, { ...params, step: "login", csrf_token: form.csrf, username: person.username, password: person.password }, { ...own, cookie: form.cookie });
      expect(login.status).toBe(200);
      const loginCookie = login.headers.get("set-cookie")!;
      expect(loginCookie).toMatch(/^__Host-rhizome_oauth_login=[^;]+; Path=\/; Secure; HttpOnly; SameSite=Lax/);
      const consent = { ...params, step: "consent", csrf_token: csrfOf(login.text), decision: "allow", allow_scope: "notes:read" };
      const unprefixed = loginCookie.split(";")[0]!.replace("__Host-", "");
      expect((await postForm(`${secure.url}/oauth/authorize`, consent, { ...own, cookie: unprefixed })).headers.get("location")).toBeNull();
      const granted = await postForm(`${secure.url}/oauth/authorize`, consent, { ...own, cookie: loginCookie.split(";")[0]! });
      expect(granted.status).toBe(303);
      expect(new URL(granted.headers.get("location")!).searchParams.get("code")).toBeString();
    } finally {
      await secure.stop();
    }
  });

  test("`Origin: null` (a no-referrer page's form) counts as another site: no login, no code", async () => {
    const person = await api.newUser("oauthnullorigin");
    const { params } = authorizeRequest();
    const { cookie, csrf } = await loginForm(server.url, params);
    const login = await postForm(`${server.url}/oauth/authorize`, { ...params, step: "login", csrf_token: csrf, username: person.username, password: person.password }, { cookie, origin: "null" });
    expect(login.status).toBe(403);
    expect(login.headers.get("set-cookie")).toBeNull();
    expect(await pageLogins(person.username)).toBe(0);
    const loggedIn = await pageLogin(server.url, params, person.username, person.password);
    const consent = await postForm(
      `${server.url}/oauth/authorize`,
      { ...params, step: "consent", csrf_token: loggedIn.csrf, decision: "allow", allow_scope: "notes:read" },
      { cookie: loggedIn.cookie, origin: "null" },
    );
    expect(consent.status).toBe(403);
    expect(consent.headers.get("location")).toBeNull();
    // The same consent from this server's own origin is granted.
    const granted = await postForm(
      `${server.url}/oauth/authorize`,
      { ...params, step: "consent", csrf_token: loggedIn.csrf, decision: "allow", allow_scope: "notes:read" },
      { cookie: loggedIn.cookie, origin: server.url },
    );
    expect(granted.status).toBe(303);
    expect(new URL(granted.headers.get("location")!).searchParams.get("code")).toBeString();
  });

  test("Deny redirects with access_denied and the state", async () => {
    const { params } = authorizeRequest();
    const { cookie, csrf, html } = await pageLogin(server.url, params, user.username, user.password);
    expect(html).toContain("notes:write — create, update and delete notes");
    const response = await postForm(`${server.url}/oauth/authorize`, { ...params, step: "consent", csrf_token: csrf, decision: "deny" }, { cookie });
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get("location")!);
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("state")).toBe("st-123");
    expect(location.searchParams.get("code")).toBeNull();
    expect(location.searchParams.get("iss")).toBe(await metadataIssuer());
  });

  test("a wrong password on the page counts toward the same throttle as POST /api/auth/login", async () => {
    const victim = await api.newUser("oauththrottle");
    const { params } = authorizeRequest();
    const { cookie, csrf } = await loginForm(server.url, params);
    for (let attempt = 0; attempt < 5; attempt++) {
      const wrong = await postForm(`${server.url}/oauth/authorize`, { ...params, step: "login", csrf_token: csrf, username: victim.username, password: "not-the-password" }, { cookie });
      expect(wrong.status).toBe(401);
      expect(wrong.text).toContain("Incorrect username or password");
    }
    const throttled = await api.loginForm({ username: victim.username, password: victim.password });
    expect(throttled.status).toBe(429);
    const onPage = await postForm(`${server.url}/oauth/authorize`, { ...params, step: "login", csrf_token: csrf, username: victim.username, password: victim.password }, { cookie });
    expect(onPage.status).toBe(429);
    expect(onPage.headers.get("retry-after")).not.toBeNull();
  });
});

describe("the token endpoint", () => {
  test("a code works once; used again, it fails and what it issued is revoked", async () => {
    const { params, verifier } = authorizeRequest();
    const { code } = await codeFor(server.url, params, user.username, user.password, ["notes:read"]);
    const first = await exchange({ code, code_verifier: verifier });
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    // The control: the token the code gave works at /mcp until the code comes back.
    expect(await mcpStatus(first.body.access_token)).toBe(200);
    const second = await exchange({ code, code_verifier: verifier });
    expect(second.status).toBe(400);
    expect(second.body.error).toBe("invalid_grant");
    expect(await mcpStatus(first.body.access_token)).toBe(401);
  });

  test("a refresh token sent under another client_id is invalid_grant, and neither spends nor revokes the owner's grant", async () => {
    const { params, verifier } = authorizeRequest();
    const { code } = await codeFor(server.url, params, user.username, user.password, ["notes:read"]);
    const tokens = (await exchange({ code, code_verifier: verifier })).body;
    const refresh = (refreshToken: string, client: string) => postForm(`${server.url}/oauth/token`, { grant_type: "refresh_token", refresh_token: refreshToken, client_id: client });
    const stolen = await refresh(tokens.refresh_token, otherClientId);
    expect(stolen.status).toBe(400);
    expect(stolen.body).toEqual({ error: "invalid_grant", error_description: "This refresh token was issued to another client" });
    expect(stolen.body.access_token).toBeUndefined();
    // The owner is unharmed: its access token still works, and its refresh token was not spent.
    expect(await mcpStatus(tokens.access_token)).toBe(200);
    const renewed = await refresh(tokens.refresh_token, clientId);
    expect(renewed.status).toBe(200);
    expect(await mcpStatus(renewed.body.access_token)).toBe(200);
    // Rotation still guards it: the spent token, back under the right client_id, revokes the grant (RFC 9700 section 4.14.2).
    expect((await refresh(tokens.refresh_token, clientId)).body.error).toBe("invalid_grant");
    expect(await mcpStatus(renewed.body.access_token)).toBe(401);
  });

  test("a code for another client, a wrong verifier, a wrong redirect URI: invalid_grant", async () => {
    const { params, verifier } = authorizeRequest();
    const { code } = await codeFor(server.url, params, user.username, user.password, ["notes:read"]);
    expect((await exchange({ code, code_verifier: verifier, client_id: otherClientId })).body.error).toBe("invalid_grant");
    expect((await exchange({ code, code_verifier: pkcePair().verifier })).body.error).toBe("invalid_grant");
    expect((await exchange({ code, code_verifier: verifier, redirect_uri: "http://127.0.0.1:10/callback" })).body.error).toBe("invalid_grant");
    // None of those spent it.
    expect((await exchange({ code, code_verifier: verifier })).status).toBe(200);
  });

  test("an expired code is refused", async () => {
    const { params, verifier } = authorizeRequest();
    const { code } = await codeFor(server.url, params, user.username, user.password, ["notes:read"]);
    const client = server.openNotesClient();
    try {
      await client.execute("update oauth_codes set expires_at = ? where used_at is null", [Date.now() - 1]);
    } finally {
      client.close();
    }
    const response = await exchange({ code, code_verifier: verifier });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: "invalid_grant", error_description: "This authorization code has expired (codes live 60 seconds)" });
  });

  test("bad requests get RFC 6749 errors, never a 500", async () => {
    const json = await fetch(`${server.url}/oauth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(json.status).toBe(400);
    expect(((await json.json()) as any).error).toBe("invalid_request");
    expect((await postForm(`${server.url}/oauth/token`, { grant_type: "password", client_id: clientId })).body.error).toBe("unsupported_grant_type");
    expect((await postForm(`${server.url}/oauth/token`, { grant_type: "authorization_code", client_id: clientId })).body.error).toBe("invalid_request");
    expect((await exchange({ code: "nope", code_verifier: "short" })).body.error).toBe("invalid_request");
    expect((await exchange({ code: "nope", code_verifier: pkcePair().verifier })).body.error).toBe("invalid_grant");
    expect((await postForm(`${server.url}/oauth/token`, { grant_type: "refresh_token", refresh_token: "rhzr_nope", client_id: clientId })).body.error).toBe("invalid_grant");
    expect((await fetch(`${server.url}/oauth/token`)).status).toBe(405);
    expect((await postForm(`${server.url}/oauth/revoke`, { token: "whatever" })).status).toBe(200);
  });

  test("a client named by HTTP Basic is accepted; malformed Basic credentials are invalid_client, never a 500", async () => {
    const basic = (user: string) => ({ authorization: `Basic ${Buffer.from(`${user}:`).toString("base64")}` });
    const { params, verifier } = authorizeRequest();
    const { code } = await codeFor(server.url, params, user.username, user.password, ["notes:read"]);
    const viaBasic = await postForm(`${server.url}/oauth/token`, { grant_type: "authorization_code", redirect_uri: REDIRECT, code, code_verifier: verifier }, basic(encodeURIComponent(clientId)));
    expect(viaBasic.status).toBe(200);
    for (const user of ["%", "%zz", "rhzc_%E0%A4%A", ""]) {
      const response = await postForm(`${server.url}/oauth/token`, { grant_type: "refresh_token", refresh_token: "rhzr_nope" }, basic(user));
      expect(response.status).toBe(401);
      expect(response.body.error).toBe("invalid_client");
      expect(response.headers.get("www-authenticate")).toStartWith("Basic");
    }
  });

  test("a connector token is a 401 everywhere but /mcp; revoking it at /oauth/revoke ends it", async () => {
    const { params, verifier } = authorizeRequest();
    const { code } = await codeFor(server.url, params, user.username, user.password, ["notes:read", "notes:write"]);
    const tokens = (await exchange({ code, code_verifier: verifier })).body;
    const connector = api.withToken(tokens.access_token);
    expectError(await connector.get("/api/notes"), 401, "UNAUTHORIZED");
    expectError(await connector.get("/api/auth/me"), 401, "UNAUTHORIZED");
    expectError(await connector.post("/api/notes", { title: "x", content: "y" }), 401, "UNAUTHORIZED");
    expect((await connector.get("/trpc/notes.list")).status).toBe(401);
    expect((await connector.get("/api/events")).status).toBe(401);
    expect(await mcpStatus(tokens.access_token)).toBe(200);
    expect((await postForm(`${server.url}/oauth/revoke`, { token: tokens.refresh_token, client_id: clientId })).status).toBe(200);
    expect(await mcpStatus(tokens.access_token)).toBe(401);
  });
});

describe("registration", () => {
  test("redirect URIs must be https or loopback http; bad metadata is a clear 400", async () => {
    for (const uris of [["http://example.com/cb"], ["https://example.com/cb#frag"], ["javascript:alert(1)"], [], "nope"]) {
      const response = await registerClient(server.url, uris as string[]);
      expect(response.status).toBe(400);
      expect(response.body.error).toBe("invalid_redirect_uri");
    }
    const notJson = await fetch(`${server.url}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" });
    expect(notJson.status).toBe(400);
    const ok = await registerClient(server.url, ["http://localhost/cb", "http://[::1]:8080/cb"], { token_endpoint_auth_method: "client_secret_basic" });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ redirect_uris: ["http://localhost/cb", "http://[::1]:8080/cb"], token_endpoint_auth_method: "none", response_types: ["code"] });
  });

  test("at most 20 registrations an hour per client address", async () => {
    let refused: Awaited<ReturnType<typeof registerClient>> | undefined;
    for (let attempt = 0; attempt < 25 && !refused; attempt++) {
      const response = await registerClient(server.url, ["https://example.com/cb"]);
      if (response.status === 429) refused = response;
      else expect(response.status).toBe(201);
    }
    expect(refused).toBeDefined();
    expect(refused!.headers.get("retry-after")).not.toBeNull();
    expect(refused!.body.error).toBeString();
  });
});
