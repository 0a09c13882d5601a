import { describe, expect, test } from "bun:test";
import { currentTotpStep, TOTP_PERIOD_SECONDS, totpCodeAt } from "../../src/modules/auth/totp";
import { ALL_SCOPES, createAccessToken } from "../support/access-tokens";
import { expectError, expectUnauthorized } from "../support/api";
import { serverForThisFile } from "../support/server";
import { sha256Hex } from "../support/sha256";
import { awayFromStepBoundary } from "../support/totp-steps";

const { server, api, db } = await serverForThisFile();

const DAY_MS = 24 * 60 * 60 * 1000;

function expectMissingScope(response: { status: number; body: any; text: string; headers: Headers }, scope: string) {
  expectError(response, 403, "FORBIDDEN");
  expect(response.body.message).toBe(`This token lacks the scope ${scope}`);
  expect(response.headers.get("www-authenticate")).toBe(`Bearer realm="rhizome", error="insufficient_scope", scope="${scope}"`);
}

async function tokenRow(id: number) {
  return (await db.execute({ sql: "select * from access_tokens where id = ?", args: [id] })).rows[0];
}

describe("creating, listing and revoking access tokens", () => {
  test("a new token is rhz_ and 32 base62 characters, shown once, with its prefix, scopes and a 90-day expiry", async () => {
    const { api: user } = await api.newUser("tok");
    const before = Date.now();
    const created = await user.post("/api/auth/tokens", { name: "  my\tscript ", scopes: ["notes:read", "notes:write", "notes:read"] });
    expect(created.status).toBe(201);
    const body = created.body;
    expect(Object.keys(body).sort()).toEqual(["created_at", "expires_at", "id", "last_used_at", "name", "prefix", "scopes", "token"]);
    expect(body.token).toMatch(/^rhz_[0-9A-Za-z]{32}$/);
    expect(body.prefix).toBe(body.token.slice(4, 12));
    expect(body.name).toBe("my script");
    expect(body.scopes).toEqual(["notes:read", "notes:write"]);
    expect(body.last_used_at).toBeNull();
    const expires = Date.parse(body.expires_at) - Date.parse(body.created_at);
    expect(expires).toBe(90 * DAY_MS);
    expect(Date.parse(body.created_at)).toBeGreaterThanOrEqual(before - 1000);

    const listed = await user.get("/api/auth/tokens");
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([
      { id: body.id, name: "my script", scopes: ["notes:read", "notes:write"], prefix: body.prefix, kind: "personal", client_name: null, created_at: body.created_at, expires_at: body.expires_at, last_used_at: null },
    ]);
    expect(listed.text).not.toContain(body.token);
  });

  test("the database keeps only a hash of the token", async () => {
    const { api: user } = await api.newUser("tokhash");
    const created = await user.post("/api/auth/tokens", { name: "hash", scopes: ["notes:read"] });
    const row = await tokenRow(created.body.id);
    expect(row!.token_hash).toBe(sha256Hex(created.body.token));
    expect(server.writtenBytes().includes(Buffer.from(created.body.token))).toBe(false);
  });

  test("expires_in_days sets the expiry; null never expires", async () => {
    const { api: user } = await api.newUser("tokexp");
    const week = await user.post("/api/auth/tokens", { name: "week", scopes: ["ask"], expires_in_days: 7 });
    expect(Date.parse(week.body.expires_at) - Date.parse(week.body.created_at)).toBe(7 * DAY_MS);
    const forever = await user.post("/api/auth/tokens", { name: "forever", scopes: ["ask"], expires_in_days: null });
    expect(forever.status).toBe(201);
    expect(forever.body.expires_at).toBeNull();
  });

  test("bad input is a 400 naming the field", async () => {
    const { api: user } = await api.newUser("tokbad");
    const cases: [unknown, string][] = [
      [{ name: "x", scopes: [] }, "scopes"],
      [{ name: "x", scopes: ["notes:delete"] }, "scopes"],
      [{ name: "x", scopes: "notes:read" }, "scopes"],
      [{ name: "", scopes: ["ask"] }, "name"],
      [{ name: " \t ", scopes: ["ask"] }, "name"],
      [{ name: "x".repeat(65), scopes: ["ask"] }, "name"],
      [{ name: "x", scopes: ["ask"], expires_in_days: 0 }, "expires_in_days"],
      [{ name: "x", scopes: ["ask"], expires_in_days: 366 }, "expires_in_days"],
      [{ name: "x", scopes: ["ask"], expires_in_days: 1.5 }, "expires_in_days"],
      [{ scopes: ["ask"] }, "name"],
    ];
    for (const [input, field] of cases) {
      const response = await user.post("/api/auth/tokens", input);
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.issues.map((issue: { path: string[] }) => issue.path[0])).toContain(field);
    }
    expect((await user.get("/api/auth/tokens")).body.items).toEqual([]);
  });

  test("revoking stops the token at once; another user's token is a 404", async () => {
    const { api: owner } = await api.newUser("tokrev");
    const { api: other } = await api.newUser("tokrev2");
    const token = await createAccessToken(owner, ["notes:read"]);
    const program = api.withToken(token);
    expect((await program.get("/api/notes")).status).toBe(200);
    const id = (await owner.get("/api/auth/tokens")).body.items[0].id;

    expectError(await other.delete(`/api/auth/tokens/${id}`), 404, "NOT_FOUND");
    expect((await program.get("/api/notes")).status).toBe(200);

    const revoked = await owner.delete(`/api/auth/tokens/${id}`);
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe("");
    expectUnauthorized(await program.get("/api/notes"));
    expectError(await owner.delete(`/api/auth/tokens/${id}`), 404, "NOT_FOUND");
    expect((await owner.get("/api/auth/tokens")).body.items).toEqual([]);
  });

  test("an expired token is a 401 and leaves the list", async () => {
    const { api: user } = await api.newUser("tokold");
    const created = await user.post("/api/auth/tokens", { name: "old", scopes: ["notes:read"], expires_in_days: 1 });
    await db.execute({ sql: "update access_tokens set expires_at = ? where id = ?", args: [Date.now() - 1, created.body.id] });
    expectError(await api.withToken(created.body.token).get("/api/notes"), 401, "UNAUTHORIZED");
    expect((await user.get("/api/auth/tokens")).body.items).toEqual([]);
  });

  test("an unknown rhz_ token is a 401; the pending-login endpoint refuses a valid token with 403", async () => {
    expectError(await api.withToken(`rhz_${"A".repeat(32)}`).get("/api/auth/me"), 401, "UNAUTHORIZED");
    expectError(await api.withToken(`rhz_${"A".repeat(32)}`).post("/api/auth/totp/verify", { code: "123456" }), 401, "UNAUTHORIZED");
    const { api: user } = await api.newUser("tokpend");
    const token = await createAccessToken(user, ALL_SCOPES);
    expectError(await api.withToken(token).post("/api/auth/totp/verify", { code: "123456" }), 403, "FORBIDDEN");
  });

  test("an account holds at most 100 live tokens (409 past it); revoking one makes room", async () => {
    const { api: user } = await api.newUser("tokcap");
    const created = await Promise.all(Array.from({ length: 100 }, (_, n) => user.post("/api/auth/tokens", { name: `t${n}`, scopes: ["ask"] })));
    expect(created.map((response) => response.status)).toEqual(Array(100).fill(201));
    expectError(await user.post("/api/auth/tokens", { name: "one more", scopes: ["ask"] }), 409, "CONFLICT");
    expect((await user.get("/api/auth/tokens")).body.items).toHaveLength(100);
    expect((await user.delete(`/api/auth/tokens/${created[0]!.body.id}`)).status).toBe(204);
    expect((await user.post("/api/auth/tokens", { name: "room again", scopes: ["ask"] })).status).toBe(201);
  });

  test("last_used_at is written on first use and then at most once a minute", async () => {
    const { api: user } = await api.newUser("tokused");
    const created = await user.post("/api/auth/tokens", { name: "used", scopes: ["notes:read"] });
    const program = api.withToken(created.body.token);
    const before = Date.now();
    expect((await program.get("/api/notes")).status).toBe(200);
    const first = (await user.get("/api/auth/tokens")).body.items[0].last_used_at;
    expect(Date.parse(first)).toBeGreaterThanOrEqual(before - 5);
    for (let n = 0; n < 5; n++) expect((await program.get("/api/notes")).status).toBe(200);
    expect((await user.get("/api/auth/tokens")).body.items[0].last_used_at).toBe(first);
    // A minute later (moved back in the database rather than waited for), the next use writes again.
    await db.execute({ sql: "update access_tokens set last_used_at = last_used_at - 61000 where id = ?", args: [created.body.id] });
    const beforeSecondWrite = Date.now();
    expect((await program.get("/api/notes")).status).toBe(200);
    expect(Date.parse((await user.get("/api/auth/tokens")).body.items[0].last_used_at)).toBeGreaterThanOrEqual(beforeSecondWrite - 5);
  });
});

describe("what a token may do", () => {
  test("a token acts for its own user only: another user's note is a 404", async () => {
    const { api: alice } = await api.newUser("tokalice");
    const { api: bob } = await api.newUser("tokbob");
    const note = await alice.post("/api/notes", { title: "Alice's", content: "secret" });
    const bobs = api.withToken(await createAccessToken(bob, ALL_SCOPES));
    expectError(await bobs.get(`/api/notes/${note.body.id}`), 404, "NOT_FOUND");
    expectError(await bobs.put(`/api/notes/${note.body.id}`, { title: "taken" }), 404, "NOT_FOUND");
    expectError(await bobs.delete(`/api/notes/${note.body.id}`), 404, "NOT_FOUND");
    expect((await bobs.get("/api/notes")).body.total).toBe(0);
    expect((await alice.get(`/api/notes/${note.body.id}`)).body.title).toBe("Alice's");
  });

  test("a read-only token reads but gets 403 insufficient_scope on writes, and nothing changes", async () => {
    const { api: user } = await api.newUser("tokro");
    const note = await user.post("/api/notes", { title: "Kept", content: "as it was" });
    const reader = api.withToken(await createAccessToken(user, ["notes:read"]));
    expect((await reader.get(`/api/notes/${note.body.id}`)).body.content).toBe("as it was");
    expectMissingScope(await reader.post("/api/notes", { title: "new" }), "notes:write");
    expectMissingScope(await reader.put(`/api/notes/${note.body.id}`, { content: "changed" }), "notes:write");
    expectMissingScope(await reader.delete(`/api/notes/${note.body.id}`), "notes:write");
    expectMissingScope(await reader.get("/api/knowledge-graph"), "graph:read");
    expectMissingScope(await reader.post("/api/ask", { question: "what?" }), "ask");
    const notes = (await user.get("/api/notes")).body;
    expect(notes.total).toBe(1);
    expect((await user.get(`/api/notes/${note.body.id}`)).body.content).toBe("as it was");
  });

  test("the same check holds over tRPC", async () => {
    const { api: user } = await api.newUser("toktrpc");
    const token = await createAccessToken(user, ["notes:read"]);
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const list = await fetch(`${server.url}/trpc/notes.list`, { headers });
    expect(list.status).toBe(200);
    const create = await fetch(`${server.url}/trpc/notes.create`, { method: "POST", headers, body: JSON.stringify({ title: "no" }) });
    expect(create.status).toBe(403);
    expect(((await create.json()) as any).error.message).toBe("This token lacks the scope notes:write");
    expect(create.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    expect((await user.get("/api/notes")).body.total).toBe(0);
  });

  test("token management, TOTP, logout and tickets need a login session: a token gets 403 whatever its scopes", async () => {
    const { api: user } = await api.newUser("toksess");
    const program = api.withToken(await createAccessToken(user, ALL_SCOPES));
    for (const response of [
      await program.post("/api/auth/tokens", { name: "mint", scopes: ["notes:read"] }),
      await program.get("/api/auth/tokens"),
      await program.delete("/api/auth/tokens/1"),
      await program.post("/api/auth/totp/setup"),
      await program.post("/api/auth/totp/enable", { code: "123456" }),
      await program.post("/api/auth/totp/disable", { password: "password-123", code: "123456" }),
      await program.post("/api/auth/logout"),
      await program.post("/api/auth/ticket"),
    ]) {
      expectError(response, 403, "FORBIDDEN");
      expect(response.body.message).toContain("login session");
    }
    expect((await user.get("/api/auth/tokens")).body.items).toHaveLength(1);
    // The token still works: logout with it revoked nothing.
    expect((await program.get("/api/auth/me")).status).toBe(200);
  });

  test("GET /api/auth/me and the event stream need only a valid token", async () => {
    const { api: user, username } = await api.newUser("tokme");
    const token = await createAccessToken(user, ["ask"]);
    const me = await api.withToken(token).get("/api/auth/me");
    expect(me.status).toBe(200);
    expect(me.body.username).toBe(username);
    const controller = new AbortController();
    const events = await fetch(`${server.url}/api/events`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
    expect(events.status).toBe(200);
    expect(events.headers.get("content-type")).toContain("text/event-stream");
    controller.abort();
  });

  test("a token is never accepted in a URL", async () => {
    const { api: user } = await api.newUser("tokurl");
    const token = await createAccessToken(user, ALL_SCOPES);
    expectError(await api.get(`/api/events?access_token=${token}`), 401, "UNAUTHORIZED");
    expectError(await api.get(`/api/events?ticket=${token}`), 401, "UNAUTHORIZED");
  });
});

describe("TOTP accounts confirm a new token with a code", () => {
  const STEP_MS = TOTP_PERIOD_SECONDS * 1000;
  async function enrolled() {
    const { api: user } = await api.newUser("toktotp");
    const setup = await user.post("/api/auth/totp/setup");
    // Away from a step boundary, so the step used to enable stays within the ±1 window for the test.
    await awayFromStepBoundary();
    const step = currentTotpStep();
    const enabled = await user.post("/api/auth/totp/enable", { code: totpCodeAt(setup.body.secret, (step - 1) * STEP_MS) });
    expect(enabled.status).toBe(200);
    return { user, secret: setup.body.secret as string, step, recovery: enabled.body.recovery_codes as string[] };
  }

  test("no code or a wrong code is a 400 and makes nothing; a current code or a recovery code works", async () => {
    const { user, secret, step, recovery } = await enrolled();
    const missing = await user.post("/api/auth/tokens", { name: "x", scopes: ["notes:read"] });
    expectError(missing, 400, "BAD_REQUEST");
    expect(missing.body.message).toContain("code");
    const current = totpCodeAt(secret, step * STEP_MS);
    const wrong = current === "000000" ? "000001" : "000000";
    expectError(await user.post("/api/auth/tokens", { name: "x", scopes: ["notes:read"], code: wrong }), 400, "BAD_REQUEST");
    expect((await user.get("/api/auth/tokens")).body.items).toEqual([]);

    expect((await user.post("/api/auth/tokens", { name: "x", scopes: ["notes:read"], code: current })).status).toBe(201);
    // A code is spent once.
    expectError(await user.post("/api/auth/tokens", { name: "y", scopes: ["notes:read"], code: current }), 400, "BAD_REQUEST");
    expect((await user.post("/api/auth/tokens", { name: "y", scopes: ["notes:read"], code: recovery[0] })).status).toBe(201);
    expect((await user.get("/api/auth/tokens")).body.items).toHaveLength(2);
  });
});
