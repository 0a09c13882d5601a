// The account's own care: changing the password, seeing and ending login sessions. All of it for a
// person at a login session only; another account's session is a 404 like anything else of theirs.
import { describe, expect, test } from "bun:test";
import { currentTotpStep, TOTP_PERIOD_SECONDS, totpCodeAt } from "../../src/modules/auth/totp";
import { ALL_SCOPES, createAccessToken } from "../support/access-tokens";
import { type Api, expectError, expectUnauthorized } from "../support/api";
import { serverForThisFile } from "../support/server";
import { awayFromStepBoundary } from "../support/totp-steps";

const { api, db } = await serverForThisFile();

/** Logs in again as the user, with a User-Agent of its own; returns that session's client. */
async function loginAs(user: { username: string; password: string }, userAgent = "test-client"): Promise<Api> {
  const response = await api.request("POST", "/api/auth/login", {
    body: new URLSearchParams({ username: user.username, password: user.password }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": userAgent },
  });
  expect(response.status).toBe(200);
  return api.withToken(response.body.access_token);
}

async function passwordHash(userId: number): Promise<string> {
  return String((await db.execute({ sql: "select password_hash from users where id = ?", args: [userId] })).rows[0]!.password_hash);
}

/** An account with TOTP on; its recovery codes stand in for codes (each works once, no clock to wait on). */
async function totpUser(prefix: string) {
  const user = await api.newUser(prefix);
  const setup = await user.api.post("/api/auth/totp/setup");
  await awayFromStepBoundary();
  const enabled = await user.api.post("/api/auth/totp/enable", { code: totpCodeAt(setup.body.secret, (currentTotpStep() - 1) * TOTP_PERIOD_SECONDS * 1000) });
  expect(enabled.status).toBe(200);
  return { ...user, secret: setup.body.secret as string, recoveryCodes: enabled.body.recovery_codes as string[] };
}

test("REGISTRATION=open (the default): GET /api/auth/registration says open, with accounts or not", async () => {
  await api.newUser("open");
  const response = await api.get("/api/auth/registration");
  expect(response.status).toBe(200);
  expect(response.body).toEqual({ open: true });
});

describe("POST /api/auth/password", () => {
  test("the new password counts at once; every other login session ends, this one and the access tokens stay", async () => {
    const user = await api.newUser("pw");
    const other = await loginAs(user, "other-browser");
    const token = await createAccessToken(user.api, ["notes:read"]);
    const changed = await user.api.post("/api/auth/password", { current_password: user.password, new_password: "a brand new secret" });
    expect(changed.status).toBe(204);
    expect(changed.text).toBe("");
    expect((await user.api.get("/api/auth/me")).status).toBe(200);
    expectUnauthorized(await other.get("/api/auth/me"));
    expect((await api.withToken(token).get("/api/notes")).status).toBe(200);
    expectUnauthorized(await api.loginForm({ username: user.username, password: user.password }));
    expect((await api.loginForm({ username: user.username, password: "a brand new secret" })).status).toBe(200);
    // Stored as argon2id, like every password.
    expect(await passwordHash(user.id)).toStartWith("$argon2id$");
  });

  test("a wrong current password is a 401 and changes nothing", async () => {
    const user = await api.newUser("pwwrong");
    const other = await loginAs(user);
    const before = await passwordHash(user.id);
    const refused = await user.api.post("/api/auth/password", { current_password: "not my password", new_password: "another password" });
    expectUnauthorized(refused);
    expect(refused.body.message).toBe("Incorrect password");
    expect(await passwordHash(user.id)).toBe(before);
    expect((await other.get("/api/auth/me")).status).toBe(200);
    expect((await api.loginForm({ username: user.username, password: user.password })).status).toBe(200);
  });

  test("wrong passwords are throttled: after five, even the right one waits (429 with Retry-After)", async () => {
    const user = await api.newUser("pwthrottle");
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await user.api.post("/api/auth/password", { current_password: `guess ${attempt}`, new_password: "another password" })).status).toBe(401);
    }
    const throttled = await user.api.post("/api/auth/password", { current_password: user.password, new_password: "another password" });
    expectError(throttled, 429, "TOO_MANY_REQUESTS");
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await api.loginForm({ username: user.username, password: user.password })).status).toBe(200);
  });

  test("with TOTP on, a code is needed: none is a 400, a wrong one a 401 (nothing changes), a recovery code or TOTP code does it", async () => {
    const user = await totpUser("pwtotp");
    const before = await passwordHash(user.id);
    const missing = await user.api.post("/api/auth/password", { current_password: user.password, new_password: "new password 1" });
    expectError(missing, 400, "BAD_REQUEST");
    expect(missing.body.message).toContain("code");
    const wrong = await user.api.post("/api/auth/password", { current_password: user.password, new_password: "new password 1", code: "aaaaa-bbbbb" });
    expectUnauthorized(wrong);
    expect(wrong.body.message).toBe("Invalid two-factor code");
    expect(await passwordHash(user.id)).toBe(before);
    const withRecovery = await user.api.post("/api/auth/password", { current_password: user.password, new_password: "new password 1", code: user.recoveryCodes[0] });
    expect(withRecovery.status).toBe(204);
    const withTotp = await user.api.post("/api/auth/password", { current_password: "new password 1", new_password: "new password 2", code: totpCodeAt(user.secret) });
    expect(withTotp.status).toBe(204);
    expect((await api.loginForm({ username: user.username, password: "new password 2", totp_code: user.recoveryCodes[1]! })).status).toBe(200);
  });

  test("bad input is a 400 naming the field", async () => {
    const { api: user, password } = await api.newUser("pwbad");
    const cases: [unknown, string][] = [
      [{ current_password: password, new_password: "short" }, "new_password"],
      [{ current_password: password, new_password: "x".repeat(129) }, "new_password"],
      [{ current_password: password }, "new_password"],
      [{ new_password: "long enough" }, "current_password"],
      [{ current_password: "", new_password: "long enough" }, "current_password"],
      [{ current_password: password, new_password: 12345678 }, "new_password"],
    ];
    for (const [input, field] of cases) {
      const response = await user.post("/api/auth/password", input);
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.issues.some((issue: { path: string[] }) => issue.path[0] === field)).toBe(true);
    }
    // Exactly 8 and 128 characters are fine.
    expect((await user.post("/api/auth/password", { current_password: password, new_password: "x".repeat(128) })).status).toBe(204);
    expect((await user.post("/api/auth/password", { current_password: "x".repeat(128), new_password: "12345678" })).status).toBe(204);
  });
});

describe("login sessions", () => {
  test("the list shows the account's live logins, newest first, with their User-Agent and which one is current", async () => {
    const user = await api.newUser("sess");
    const laptop = await loginAs(user, "Mozilla/5.0 (Laptop)");
    const phone = await loginAs(user, "Mozilla/5.0 (Phone)");
    // Another account's login is not listed.
    await api.newUser("sess-other");
    const listed = await laptop.get("/api/auth/sessions");
    expect(listed.status).toBe(200);
    const items = listed.body.items;
    expect(items).toHaveLength(3);
    expect(items.map((item: any) => item.user_agent)).toEqual(["Mozilla/5.0 (Phone)", "Mozilla/5.0 (Laptop)", expect.any(String)]);
    expect(items.map((item: any) => item.current)).toEqual([false, true, false]);
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual(["created_at", "current", "expires_at", "id", "last_used_at", "user_agent"]);
      expect(Number.isInteger(item.id) && item.id > 0).toBe(true);
      expect(Date.parse(item.expires_at) - Date.parse(item.created_at)).toBe(30 * 24 * 60 * 60 * 1000);
      expect(Date.parse(item.last_used_at)).toBeGreaterThanOrEqual(Date.parse(item.created_at));
    }
    expect(new Set(items.map((item: any) => item.id)).size).toBe(3);
    expect(((await phone.get("/api/auth/sessions")).body.items as any[]).find((item) => item.current).user_agent).toBe("Mozilla/5.0 (Phone)");
    // Never a token or its hash.
    expect(listed.text).not.toContain(laptop.token!);
  });

  test("a login waiting for its second factor is not listed", async () => {
    const user = await totpUser("sesstotp");
    const pending = await api.loginForm({ username: user.username, password: user.password });
    expect(pending.body.totp_required).toBe(true);
    expect((await user.api.get("/api/auth/sessions")).body.items).toHaveLength(1);
  });

  test("a long User-Agent is kept cut to 256 characters", async () => {
    const user = await api.newUser("sessua");
    const long = await loginAs(user, `Agent/${"x".repeat(400)}`);
    const items = (await long.get("/api/auth/sessions")).body.items as any[];
    expect(items.find((item) => item.current).user_agent).toBe(`Agent/${"x".repeat(250)}`);
  });

  test("last_used_at moves on when a session is used, at most once a minute", async () => {
    const user = await api.newUser("sesslast");
    const id = ((await user.api.get("/api/auth/sessions")).body.items as any[])[0].id;
    const lastUsed = async () => Number((await db.execute({ sql: "select last_used_at from sessions where public_id = ?", args: [id] })).rows[0]!.last_used_at);
    const twoMinutesAgo = Date.now() - 120_000;
    await db.execute({ sql: "update sessions set last_used_at = ? where public_id = ?", args: [twoMinutesAgo, id] });
    const before = Date.now();
    expect((await user.api.get("/api/auth/me")).status).toBe(200);
    const touched = await lastUsed();
    expect(touched).toBeGreaterThanOrEqual(before);
    // Within the minute, requests write nothing.
    await db.execute({ sql: "update sessions set last_used_at = ? where public_id = ?", args: [touched - 30_000, id] });
    expect((await user.api.get("/api/auth/me")).status).toBe(200);
    expect(await lastUsed()).toBe(touched - 30_000);
    const listed = ((await user.api.get("/api/auth/sessions")).body.items as any[])[0];
    expect(listed.last_used_at).toBe(new Date(touched - 30_000).toISOString());
  });

  test("DELETE /api/auth/sessions/{id} ends that login at once; the current one can be ended too", async () => {
    const user = await api.newUser("sessend");
    const other = await loginAs(user, "to be ended");
    const items = (await user.api.get("/api/auth/sessions")).body.items as any[];
    const target = items.find((item) => item.user_agent === "to be ended");
    const ended = await user.api.delete(`/api/auth/sessions/${target.id}`);
    expect(ended.status).toBe(204);
    expect(ended.text).toBe("");
    expectUnauthorized(await other.get("/api/notes"));
    expect((await user.api.get("/api/auth/sessions")).body.items.map((item: any) => item.id)).not.toContain(target.id);
    expectError(await user.api.delete(`/api/auth/sessions/${target.id}`), 404, "NOT_FOUND");
    const current = items.find((item) => item.current);
    expect((await user.api.delete(`/api/auth/sessions/${current.id}`)).status).toBe(204);
    expectUnauthorized(await user.api.get("/api/auth/me"));
  });

  test("POST /api/auth/sessions/end-others ends every login but this one (a login on the connectors' page too); access tokens stay", async () => {
    const user = await api.newUser("sessothers");
    const others = [await loginAs(user, "one"), await loginAs(user, "two")];
    const pageLogin = { sql: "insert into oauth_logins (id_hash, user_id, csrf_token, pending_totp, expires_at) values (?, ?, 'csrf', 0, ?)", args: [`page-${user.id}`, user.id, Date.now() + 600_000] };
    await db.execute(pageLogin);
    const token = await createAccessToken(user.api, ["notes:read"]);
    const response = await user.api.post("/api/auth/sessions/end-others");
    expect(response.status).toBe(204);
    for (const other of others) expectUnauthorized(await other.get("/api/auth/me"));
    const items = (await user.api.get("/api/auth/sessions")).body.items as any[];
    expect(items).toHaveLength(1);
    expect(items[0].current).toBe(true);
    expect((await db.execute({ sql: "select count(*) as n from oauth_logins where user_id = ?", args: [user.id] })).rows[0]!.n).toBe(0);
    expect((await api.withToken(token).get("/api/notes")).status).toBe(200);
  });

  test("another account's session id is a 404 and that login keeps working; a bad id is a 400", async () => {
    const alice = await api.newUser("sessalice");
    const bob = await api.newUser("sessbob");
    const bobSession = ((await bob.api.get("/api/auth/sessions")).body.items as any[])[0].id;
    expectError(await alice.api.delete(`/api/auth/sessions/${bobSession}`), 404, "NOT_FOUND");
    expect((await bob.api.get("/api/auth/me")).status).toBe(200);
    expectError(await alice.api.delete("/api/auth/sessions/999999999"), 404, "NOT_FOUND");
    for (const bad of ["0", "-1", "abc", "1.5"]) expectError(await alice.api.delete(`/api/auth/sessions/${bad}`), 400, "BAD_REQUEST");
  });
});

describe("login sessions only", () => {
  test("an access token, even with every scope, gets 403 on every operation here, and changes nothing", async () => {
    const user = await api.newUser("sessonly");
    const token = api.withToken(await createAccessToken(user.api, ALL_SCOPES));
    const sessionId = ((await user.api.get("/api/auth/sessions")).body.items as any[])[0].id;
    const before = await passwordHash(user.id);
    const calls = [
      () => token.post("/api/auth/password", { current_password: user.password, new_password: "token's choice" }),
      () => token.get("/api/auth/sessions"),
      () => token.delete(`/api/auth/sessions/${sessionId}`),
      () => token.post("/api/auth/sessions/end-others"),
      () => token.post("/api/auth/delete-account", { password: user.password }),
    ];
    for (const call of calls) {
      const response = await call();
      expectError(response, 403, "FORBIDDEN");
      expect(response.body.message).toContain("login session");
    }
    expect(await passwordHash(user.id)).toBe(before);
    expect((await user.api.get("/api/auth/me")).status).toBe(200);
  });

  test("without a token every operation here is a 401", async () => {
    expectUnauthorized(await api.get("/api/auth/sessions"));
    expectUnauthorized(await api.post("/api/auth/sessions/end-others"));
    expectUnauthorized(await api.delete("/api/auth/sessions/1"));
    expectUnauthorized(await api.post("/api/auth/password", { current_password: "x", new_password: "yyyyyyyy" }));
    expectUnauthorized(await api.post("/api/auth/delete-account", { password: "x" }));
  });
});
