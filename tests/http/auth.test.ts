import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Api, expectError, expectUnauthorized } from "../support/api";
import { sha256Hex } from "../support/sha256";
import { uniqueName } from "../support/unique-name";
import { serverForThisFile, startTestServer, type TestServer } from "../support/server";

// Failed logins on this server stay well under the per-address limit of 20 (see the counter below);
// the per-address throttle gets its own server at the end of the file.
const DAY_MS = 24 * 60 * 60 * 1000;
const TWO_MIB = 2 * 1024 * 1024;

const { server, api, db } = await serverForThisFile();

async function sessionExpiry(token: string): Promise<number | undefined> {
  const result = await db.execute({ sql: "select expires_at from sessions where id = ?", args: [sha256Hex(token)] });
  const value = result.rows[0]?.expires_at;
  return value === undefined ? undefined : Number(value);
}

async function setSessionExpiry(token: string, expiresAt: number): Promise<void> {
  const result = await db.execute({ sql: "update sessions set expires_at = ? where id = ?", args: [expiresAt, sha256Hex(token)] });
  expect(result.rowsAffected).toBe(1);
}

/** A valid-looking token whose session has passed its expiry. */
async function expiredToken(): Promise<string> {
  const { username, password } = await api.newUser("expired");
  const token = await api.login(username, password);
  await setSessionExpiry(token, Date.now() - 1000);
  return token;
}

function oversizeJson(): string {
  return JSON.stringify({ username: "x".repeat(TWO_MIB), password: "password-123" });
}

describe("registering", () => {
  test("returns 201 with the user record and nothing else", async () => {
    const username = uniqueName("Reg");
    const before = Date.now();
    const response = await api.post("/api/auth/register", { username, password: "password-123" });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(["created_at", "id", "totp_enabled", "username"]);
    expect(Number.isInteger(response.body.id) && response.body.id > 0).toBe(true);
    expect(response.body.username).toBe(username);
    expect(response.body.totp_enabled).toBe(false);
    expect(response.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const created = Date.parse(response.body.created_at);
    expect(created).toBeGreaterThanOrEqual(before - 1000);
    expect(created).toBeLessThanOrEqual(Date.now() + 1000);
    expect(response.text).not.toMatch(/argon2|hash|password/i);
  });

  test("a taken username is a 409 conflict", async () => {
    const username = uniqueName("dup");
    expect((await api.post("/api/auth/register", { username, password: "password-123" })).status).toBe(201);
    expectError(await api.post("/api/auth/register", { username, password: "another-password" }), 409, "CONFLICT");
  });

  test("usernames are unique regardless of case", async () => {
    const username = uniqueName("CaseUser");
    expect((await api.post("/api/auth/register", { username, password: "password-123" })).status).toBe(201);
    expectError(await api.post("/api/auth/register", { username: username.toLowerCase(), password: "password-123" }), 409, "CONFLICT");
    expectError(await api.post("/api/auth/register", { username: username.toUpperCase(), password: "password-123" }), 409, "CONFLICT");
  });

  test.each([
    ["too short", "ab"],
    ["too long", "a".repeat(33)],
    ["with a space", "bad name"],
    ["with a slash", "bad/name"],
    ["with a non-ASCII letter", "jürgen"],
    ["empty", ""],
  ])("a username %s is a 400 pointing at username", async (_label, username) => {
    const response = await api.post("/api/auth/register", { username, password: "password-123" });
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.issues.length).toBeGreaterThan(0);
    for (const issue of response.body.issues) expect(issue.path).toEqual(["username"]);
  });

  test("usernames of exactly 3 and 32 allowed characters are accepted", async () => {
    const short = `${crypto.randomUUID().slice(0, 1)}.-`;
    const long = `${uniqueName("L")}_`.padEnd(32, "x");
    expect((await api.post("/api/auth/register", { username: short, password: "password-123" })).status).toBe(201);
    expect((await api.post("/api/auth/register", { username: long, password: "password-123" })).status).toBe(201);
  });

  test("a 7-character password is a 400 pointing at password", async () => {
    const response = await api.post("/api/auth/register", { username: uniqueName("pw7"), password: "1234567" });
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.issues.map((issue: { path: unknown }) => issue.path)).toEqual([["password"]]);
  });

  test("a 128-character password is accepted and logs in; 129 is a 400", async () => {
    const username = uniqueName("pw128");
    const password = "p".repeat(127) + "!";
    expect((await api.post("/api/auth/register", { username, password })).status).toBe(201);
    expect((await api.loginForm({ username, password })).status).toBe(200);
    const tooLong = await api.post("/api/auth/register", { username: uniqueName("pw129"), password: "p".repeat(129) });
    expectError(tooLong, 400, "BAD_REQUEST");
    expect(tooLong.body.issues.map((issue: { path: unknown }) => issue.path)).toEqual([["password"]]);
  });

  test("a password of 8 multi-byte characters is accepted and logs in", async () => {
    const username = uniqueName("mb");
    const password = "密码🔑é密码密码";
    expect([...password].length).toBe(8);
    expect((await api.post("/api/auth/register", { username, password })).status).toBe(201);
    const login = await api.loginForm({ username, password });
    expect(login.status).toBe(200);
    expect(login.body.totp_required).toBe(false);
  });

  test("missing fields are a 400 listing each missing path", async () => {
    const response = await api.post("/api/auth/register", {});
    expectError(response, 400, "BAD_REQUEST");
    const paths = response.body.issues.map((issue: { path: string[] }) => issue.path.join("."));
    expect(paths.sort()).toEqual(["password", "username"]);
  });

  test("an empty body is a 400", async () => {
    const response = await api.request("POST", "/api/auth/register", { headers: { "content-type": "application/json" } });
    expectError(response, 400, "BAD_REQUEST");
  });

  test("malformed JSON is a 400", async () => {
    const response = await api.request("POST", "/api/auth/register", {
      body: '{"username": "abc", "password": ',
      headers: { "content-type": "application/json" },
    });
    expectError(response, 400, "BAD_REQUEST");
  });

  test("a text/plain body is a 415", async () => {
    const response = await api.request("POST", "/api/auth/register", {
      body: JSON.stringify({ username: uniqueName("txt"), password: "password-123" }),
      headers: { "content-type": "text/plain" },
    });
    expectError(response, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  test("a body over 2 MiB is a 413", async () => {
    const response = await api.request("POST", "/api/auth/register", { body: oversizeJson(), headers: { "content-type": "application/json" } });
    expectError(response, 413, "PAYLOAD_TOO_LARGE");
  });

  test("passwords are stored only as argon2id PHC strings at m>=19456, t>=2, p=1", async () => {
    const { username, password } = await api.newUser("phc", "a-memorable-Passw0rd");
    const result = await db.execute({ sql: "select * from users where username = ?", args: [username] });
    const row = result.rows[0]!;
    const hash = String(row.password_hash);
    const match = hash.match(/^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(match).not.toBeNull();
    const [, m, t, p] = match!.map(Number);
    expect(m).toBeGreaterThanOrEqual(19456);
    expect(t).toBeGreaterThanOrEqual(2);
    expect(p).toBe(1);
    // The plaintext is in no column and nowhere in the file.
    for (const value of Object.values(row)) expect(String(value)).not.toContain(password);
    expect(server.writtenBytes().includes(password)).toBe(false);
  });
});

describe("logging in", () => {
  let user: { username: string; password: string };
  beforeAll(async () => {
    const created = await api.newUser("login");
    user = { username: created.username, password: created.password };
  });

  test("the password form gives a bearer token valid for 30 days and no TOTP step", async () => {
    const response = await api.loginForm(user);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(["access_token", "expires_at", "token_type", "totp_required"]);
    expect(response.body.token_type).toBe("bearer");
    expect(response.body.totp_required).toBe(false);
    expect(response.body.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Math.abs(Date.parse(response.body.expires_at) - (Date.now() + 30 * DAY_MS))).toBeLessThan(60_000);
    const me = await api.withToken(response.body.access_token).get("/api/auth/me");
    expect(me.status).toBe(200);
    expect(me.body.username).toBe(user.username);
  });

  test("accepts a charset parameter on the form content type", async () => {
    const response = await api.loginForm(user, "application/x-www-form-urlencoded;charset=UTF-8");
    expect(response.status).toBe(200);
    expect(response.body.token_type).toBe("bearer");
  });

  test("accepts and ignores the OAuth 2.0 grant_type, scope, client_id and client_secret fields", async () => {
    const response = await api.loginForm({ ...user, grant_type: "password", scope: "notes", client_id: "cli", client_secret: "s3cret" });
    expect(response.status).toBe(200);
    expect(response.body.totp_required).toBe(false);
  });

  test("the username is matched regardless of case", async () => {
    expect((await api.loginForm({ ...user, username: user.username.toUpperCase() })).status).toBe(200);
  });

  test("a wrong password and an unknown user get the same 401, body and challenge", async () => {
    const wrongPassword = await api.loginForm({ username: user.username, password: "not-the-password" });
    const unknownUser = await api.loginForm({ username: uniqueName("nobody"), password: "not-the-password" });
    expectUnauthorized(wrongPassword);
    expectUnauthorized(unknownUser);
    expect(unknownUser.body).toEqual(wrongPassword.body);
    expect(unknownUser.headers.get("www-authenticate")).toBe(wrongPassword.headers.get("www-authenticate"));
  });

  test("two logins get different tokens", async () => {
    const first = await api.login(user.username, user.password);
    const second = await api.login(user.username, user.password);
    expect(first).not.toBe(second);
  });

  test("the token carries at least 160 bits (32+ base32 characters)", async () => {
    const token = await api.login(user.username, user.password);
    expect(token).toMatch(/^[a-z2-7]+$/);
    expect(token.length * 5).toBeGreaterThanOrEqual(160);
  });

  test("the database keeps the token's SHA-256, never the token", async () => {
    const token = await api.login(user.username, user.password);
    const rows = await db.execute({ sql: "select id from sessions where id = ?", args: [sha256Hex(token)] });
    expect(rows.rows.length).toBe(1);
    const bytes = server.writtenBytes();
    expect(bytes.includes(sha256Hex(token))).toBe(true);
    expect(bytes.includes(token)).toBe(false);
    expect(bytes.includes(token.toUpperCase())).toBe(false);
  });

  test("missing fields are a 400 listing each path", async () => {
    const response = await api.loginForm({});
    expectError(response, 400, "BAD_REQUEST");
    const paths = response.body.issues.map((issue: { path: string[] }) => issue.path.join("."));
    expect(paths.sort()).toEqual(["password", "username"]);
  });

  test("a missing password is a 400 pointing at password", async () => {
    const response = await api.loginForm({ username: user.username });
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.issues.map((issue: { path: unknown }) => issue.path)).toEqual([["password"]]);
  });

  test("a text/plain body is a 415", async () => {
    const response = await api.loginForm(user, "text/plain");
    expectError(response, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  test("a body over 2 MiB is a 413", async () => {
    const body = new URLSearchParams({ username: user.username, password: "x".repeat(TWO_MIB) }).toString();
    const response = await api.request("POST", "/api/auth/login", { body, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expectError(response, 413, "PAYLOAD_TOO_LARGE");
  });

  test("passwords that differ only after byte 72 are different passwords", async () => {
    const stem = "0123456789".repeat(8); // 80 bytes
    const username = uniqueName("long");
    expect((await api.post("/api/auth/register", { username, password: `${stem}A` })).status).toBe(201);
    expect((await api.loginForm({ username, password: `${stem}A` })).status).toBe(200);
    expectUnauthorized(await api.loginForm({ username, password: `${stem}B` }));
  });

  test("after 5 wrong passwords even the correct one gets 429 with Retry-After", async () => {
    const { username, password } = await api.newUser("throttled");
    for (let attempt = 1; attempt <= 5; attempt++) {
      expectUnauthorized(await api.loginForm({ username, password: `wrong-${attempt}-password` }));
    }
    const blocked = await api.loginForm({ username, password });
    expectError(blocked, 429, "TOO_MANY_REQUESTS");
    const retryAfter = blocked.headers.get("retry-after");
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(15 * 60);
    // The block follows the account, not the spelling of its name.
    expectError(await api.loginForm({ username: username.toUpperCase(), password }), 429, "TOO_MANY_REQUESTS");
    // Other accounts from the same address are unaffected.
    const other = await api.newUser("neighbour");
    expect((await api.loginForm({ username: other.username, password: other.password })).status).toBe(200);
  });
});

describe("the current user", () => {
  test("returns the user record for a valid token", async () => {
    const { api: alice, username, id } = await api.newUser("me");
    const response = await alice.get("/api/auth/me");
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(["created_at", "id", "storage", "totp_enabled", "usage", "username"]);
    expect(response.body).toMatchObject({ id, username, totp_enabled: false, storage: { files: 0, bytes: 0 }, usage: { llm_calls: 0, input_tokens: 0, output_tokens: 0 } });
  });

  test("a missing token is a 401 with a Bearer challenge", async () => {
    expectUnauthorized(await api.get("/api/auth/me"));
  });

  test.each([["Basic dXNlcjpwYXNz"], ["Bearer"], ["Bearer "], ["bearer"], ["Token abc"], ["Bearer a b"]])(
    "a malformed Authorization header %p is a 401",
    async (authorization) => {
      expectUnauthorized(await api.get("/api/auth/me", { authorization }));
    },
  );

  test("an unknown token is a 401", async () => {
    expectUnauthorized(await api.withToken("a".repeat(39)).get("/api/auth/me"));
  });

  test("an expired token is a 401 and its session is removed", async () => {
    const token = await expiredToken();
    expectUnauthorized(await api.withToken(token).get("/api/auth/me"));
    expect(await sessionExpiry(token)).toBeUndefined();
  });

  test("a session with less than 15 days left is renewed to 30 days on use", async () => {
    const { api: alice } = await api.newUser("renew");
    await setSessionExpiry(alice.token!, Date.now() + 10 * DAY_MS);
    expect((await alice.get("/api/auth/me")).status).toBe(200);
    const renewed = await sessionExpiry(alice.token!);
    expect(Math.abs(renewed! - (Date.now() + 30 * DAY_MS))).toBeLessThan(60_000);
  });

  test("a session with more than 15 days left is not extended", async () => {
    const { api: alice } = await api.newUser("norenew");
    const expiresAt = Date.now() + 20 * DAY_MS;
    await setSessionExpiry(alice.token!, expiresAt);
    expect((await alice.get("/api/auth/me")).status).toBe(200);
    expect(await sessionExpiry(alice.token!)).toBe(expiresAt);
  });
});

describe("logging out", () => {
  test("answers 204 with an empty body, and the token then gets 401", async () => {
    const { api: alice } = await api.newUser("logout");
    const response = await alice.request("POST", "/api/auth/logout");
    expect(response.status).toBe(204);
    expect(response.text).toBe("");
    expectUnauthorized(await alice.get("/api/auth/me"));
    expect(await sessionExpiry(alice.token!)).toBeUndefined();
  });

  test("revokes only that token: another login of the same user keeps working", async () => {
    const { api: first, username, password } = await api.newUser("twosessions");
    const second = api.withToken(await api.login(username, password));
    expect((await first.request("POST", "/api/auth/logout")).status).toBe(204);
    expect((await second.get("/api/auth/me")).status).toBe(200);
  });

  test("without a token is a 401", async () => {
    expectUnauthorized(await api.request("POST", "/api/auth/logout"));
  });

  test("with an unknown token is a 401", async () => {
    expectUnauthorized(await api.withToken("b".repeat(39)).request("POST", "/api/auth/logout"));
  });

  test("with an expired token is a 401", async () => {
    expectUnauthorized(await api.withToken(await expiredToken()).request("POST", "/api/auth/logout"));
  });

  test("a second logout with the same token is a 401", async () => {
    const { api: alice } = await api.newUser("twice");
    expect((await alice.request("POST", "/api/auth/logout")).status).toBe(204);
    expectUnauthorized(await alice.request("POST", "/api/auth/logout"));
  });

  test("a body over 2 MiB is a 413", async () => {
    const { api: alice } = await api.newUser("bigout");
    const response = await alice.request("POST", "/api/auth/logout", { body: oversizeJson(), headers: { "content-type": "application/json" } });
    expectError(response, 413, "PAYLOAD_TOO_LARGE");
  });

  test("GET is a 405 naming POST", async () => {
    const { api: alice } = await api.newUser("getout");
    const response = await alice.get("/api/auth/logout");
    expectError(response, 405, "METHOD_NOT_SUPPORTED");
    expect(response.headers.get("allow")).toBe("POST");
  });
});

describe("failed-login counter of this server", () => {
  test("stayed below the per-address limit (so the tests above saw no address block)", async () => {
    const result = await db.execute("select key, failures from throttles where key like 'login:addr:%'");
    expect(result.rows.map((row) => row.key)).toEqual(["login:addr:127.0.0.1"]);
    expect(Number(result.rows[0]!.failures)).toBeLessThan(20);
  });
});

describe("per-address login throttling", () => {
  let own: TestServer;
  let ownApi: Api;
  beforeAll(async () => {
    own = await startTestServer();
    ownApi = new Api(own.url);
  });
  afterAll(() => own.stop());

  test("failures spread over 20 usernames from one address block a new username with 429", async () => {
    const victim = uniqueName("victim");
    expect((await ownApi.post("/api/auth/register", { username: victim, password: "password-123" })).status).toBe(201);
    for (let attempt = 0; attempt < 20; attempt++) {
      expectUnauthorized(await ownApi.loginForm({ username: uniqueName(`spray${attempt}`), password: "guess-password" }));
    }
    const blocked = await ownApi.loginForm({ username: victim, password: "password-123" });
    expectError(blocked, 429, "TOO_MANY_REQUESTS");
    expect(blocked.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expectError(await ownApi.loginForm({ username: uniqueName("fresh"), password: "whatever-pass" }), 429, "TOO_MANY_REQUESTS");
  });
});
