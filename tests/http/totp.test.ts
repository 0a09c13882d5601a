import { beforeAll, describe, expect, test } from "bun:test";
import { decodeBase32IgnorePadding } from "@oslojs/encoding";
import { currentTotpStep, TOTP_PERIOD_SECONDS, totpCodeAt } from "../../src/modules/auth/totp";
import { Api, expectError, expectUnauthorized } from "../support/api";
import { sha256Hex } from "../support/sha256";
import { serverForThisFile } from "../support/server";
import { awayFromStepBoundary } from "../support/totp-steps";

// Replay rule: each user accepts a time step once and never one older than the last accepted, within
// ±1 step of now. So every test that spends codes uses its own user, enrolled with the code of the
// previous step (S-1), which leaves S and S+1 for that test without waiting for the clock.
// The per-user second-factor throttle trips at 5 wrong codes: tests stay below it unless testing it.

const STEP_MS = TOTP_PERIOD_SECONDS * 1000;
const TWO_MIB = 2 * 1024 * 1024;

const { server, api, db } = await serverForThisFile();

interface EnrolledUser {
  api: Api;
  id: number;
  username: string;
  password: string;
  secret: string;
  recoveryCodes: string[];
  /** The step spent on enabling; the test may use S = enrolledStep + 1 and S + 1. */
  enrolledStep: number;
}

function codeForStep(secret: string, step: number): string {
  return totpCodeAt(secret, step * STEP_MS);
}

/** A 6-digit code that matches none of the steps near now. */
function wrongCode(secret: string): string {
  const step = currentTotpStep();
  const near = new Set([-2, -1, 0, 1, 2].map((offset) => codeForStep(secret, step + offset)));
  for (let n = 0; ; n++) {
    const candidate = String((123456 + n * 7919) % 1_000_000).padStart(6, "0");
    if (!near.has(candidate)) return candidate;
  }
}


async function enrolledUser(prefix: string): Promise<EnrolledUser> {
  const { api: user, id, username, password } = await api.newUser(prefix);
  const setup = await user.post("/api/auth/totp/setup");
  expect(setup.status).toBe(200);
  await awayFromStepBoundary();
  const enrolledStep = currentTotpStep() - 1;
  const enabled = await user.post("/api/auth/totp/enable", { code: codeForStep(setup.body.secret, enrolledStep) });
  expect(enabled.status).toBe(200);
  return { api: user, id, username, password, secret: setup.body.secret, recoveryCodes: enabled.body.recovery_codes, enrolledStep };
}

async function pendingToken(user: EnrolledUser): Promise<Api> {
  const response = await api.loginForm({ username: user.username, password: user.password });
  expect(response.status).toBe(200);
  expect(response.body.totp_required).toBe(true);
  return api.withToken(response.body.access_token);
}


async function userRow(id: number) {
  return (await db.execute({ sql: "select * from users where id = ?", args: [id] })).rows[0]!;
}

async function sessionExists(token: string): Promise<boolean> {
  const rows = await db.execute({ sql: "select 1 from sessions where id = ?", args: [sha256Hex(token)] });
  return rows.rows.length > 0;
}

async function expireSession(token: string): Promise<void> {
  const result = await db.execute({ sql: "update sessions set expires_at = ? where id = ?", args: [Date.now() - 1000, sha256Hex(token)] });
  expect(result.rowsAffected).toBe(1);
}

function expectThrottled(response: { status: number; body: any; text: string; headers: Headers }) {
  expectError(response, 429, "TOO_MANY_REQUESTS");
  const retryAfter = response.headers.get("retry-after");
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThan(0);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60 * 60);
}

function oversizeBody(): { body: string; headers: Record<string, string> } {
  return { body: JSON.stringify({ code: "123456", password: "x".repeat(TWO_MIB) }), headers: { "content-type": "application/json" } };
}

describe("enrolment", () => {
  test("setup returns a 160-bit base32 secret and its otpauth URI", async () => {
    const { api: user, username } = await api.newUser("setup");
    const response = await user.post("/api/auth/totp/setup");
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(["otpauth_uri", "secret"]);
    const { secret, otpauth_uri: uri } = response.body;
    expect(secret).toMatch(/^[A-Z2-7]+=*$/);
    expect(decodeBase32IgnorePadding(secret).length).toBeGreaterThanOrEqual(20);
    expect(uri.startsWith(`otpauth://totp/Rhizome:${username}?`)).toBe(true);
    const params = new URLSearchParams(uri.slice(uri.indexOf("?") + 1));
    expect(params.get("secret")).toBe(secret);
    expect(params.get("issuer")).toBe("Rhizome");
    for (const [name, value] of [["algorithm", "SHA1"], ["digits", "6"], ["period", "30"]] as const) {
      if (params.has(name)) expect(params.get(name)).toBe(value);
    }
  });

  test("setup again replaces the secret: the old secret's code no longer enables", async () => {
    const { api: user } = await api.newUser("resetup");
    const first = (await user.post("/api/auth/totp/setup")).body.secret;
    const second = (await user.post("/api/auth/totp/setup")).body.secret;
    expect(second).not.toBe(first);
    const oldCode = totpCodeAt(first);
    const newCodesNearNow = [-1, 0, 1].map((offset) => codeForStep(second, currentTotpStep() + offset));
    if (!newCodesNearNow.includes(oldCode)) {
      expectError(await user.post("/api/auth/totp/enable", { code: oldCode }), 400, "BAD_REQUEST");
    }
    expect((await user.post("/api/auth/totp/enable", { code: totpCodeAt(second) })).status).toBe(200);
  });

  test("enable with a wrong code is a 400 and leaves TOTP off", async () => {
    const { api: user } = await api.newUser("wrongenable");
    const { secret } = (await user.post("/api/auth/totp/setup")).body;
    expectError(await user.post("/api/auth/totp/enable", { code: wrongCode(secret) }), 400, "BAD_REQUEST");
    expect((await user.get("/api/auth/me")).body.totp_enabled).toBe(false);
  });

  test("enable with the current code returns 10 distinct recovery codes and turns TOTP on", async () => {
    const { api: user } = await api.newUser("enable");
    const { secret } = (await user.post("/api/auth/totp/setup")).body;
    const response = await user.post("/api/auth/totp/enable", { code: totpCodeAt(secret) });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(["recovery_codes"]);
    const codes: string[] = response.body.recovery_codes;
    expect(codes.length).toBe(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    const me = await user.get("/api/auth/me");
    expect(me.status).toBe(200);
    expect(me.body.totp_enabled).toBe(true);
  });

  test("once enabled, setup and enable are 409 conflicts", async () => {
    const user = await enrolledUser("conflict");
    expectError(await user.api.post("/api/auth/totp/setup"), 409, "CONFLICT");
    expectError(await user.api.post("/api/auth/totp/enable", { code: totpCodeAt(user.secret) }), 409, "CONFLICT");
    // The refused setup did not replace the live secret.
    expect((await api.loginForm({ username: user.username, password: user.password, totp_code: codeForStep(user.secret, user.enrolledStep + 1) })).status).toBe(200);
  });

  test("enable before setup is a 409", async () => {
    const { api: user } = await api.newUser("nosetup");
    expectError(await user.post("/api/auth/totp/enable", { code: "123456" }), 409, "CONFLICT");
  });

  test("a code from 30 s ago enables, one from 60 s ago does not", async () => {
    const { api: user } = await api.newUser("skew");
    const { secret } = (await user.post("/api/auth/totp/setup")).body;
    await awayFromStepBoundary(5000);
    const step = currentTotpStep();
    const sixtySecondsAgo = codeForStep(secret, step - 2);
    const nearCodes = [-1, 0, 1].map((offset) => codeForStep(secret, step + offset));
    if (!nearCodes.includes(sixtySecondsAgo)) {
      expectError(await user.post("/api/auth/totp/enable", { code: sixtySecondsAgo }), 400, "BAD_REQUEST");
    }
    expect((await user.post("/api/auth/totp/enable", { code: codeForStep(secret, step - 1) })).status).toBe(200);
  });

  test("the TOTP secret is not stored in plain text", async () => {
    const user = await enrolledUser("atrest");
    const raw = Buffer.from(decodeBase32IgnorePadding(user.secret));
    const bytes = server.writtenBytes();
    expect(bytes.includes(user.secret)).toBe(false);
    expect(bytes.includes(user.secret.toLowerCase())).toBe(false);
    expect(bytes.includes(raw)).toBe(false);
    expect(bytes.includes(raw.toString("base64"))).toBe(false);
    expect(bytes.includes(raw.toString("hex"))).toBe(false);
    const stored = String((await userRow(user.id)).totp_secret);
    expect(stored).not.toContain(user.secret);
    expect(stored).toMatch(/^v1\./);
  });

  test("recovery codes are stored only as keyed hashes, never as a bare SHA-256 a stolen database could be searched for", async () => {
    const user = await enrolledUser("rchash");
    const bytes = server.writtenBytes();
    for (const code of user.recoveryCodes) {
      expect(bytes.includes(code)).toBe(false);
      expect(bytes.includes(code.replace("-", ""))).toBe(false);
      expect(bytes.includes(code.toUpperCase())).toBe(false);
    }
    const rows = await db.execute({ sql: "select code_hash, used_at from recovery_codes where user_id = ?", args: [user.id] });
    expect(rows.rows.length).toBe(10);
    for (const code of user.recoveryCodes) {
      expect(bytes.includes(sha256Hex(code.replace("-", "")))).toBe(false);
      expect(bytes.includes(sha256Hex(code))).toBe(false);
    }
    expect(rows.rows.every((row) => /^hmac:[0-9a-f]{64}$/.test(String(row.code_hash)))).toBe(true);
    expect(rows.rows.every((row) => row.used_at === null)).toBe(true);
  });
});

describe("logging in with TOTP", () => {
  test("without a code gives a 5-minute pending token that only /totp/verify accepts", async () => {
    const user = await enrolledUser("pending");
    const response = await api.loginForm({ username: user.username, password: user.password });
    expect(response.status).toBe(200);
    expect(response.body.totp_required).toBe(true);
    expect(response.body.token_type).toBe("bearer");
    expect(Math.abs(Date.parse(response.body.expires_at) - (Date.now() + 5 * 60_000))).toBeLessThan(30_000);
    const pending = api.withToken(response.body.access_token);
    expectUnauthorized(await pending.get("/api/auth/me"));
    expectUnauthorized(await pending.get("/api/notes"));
    expectUnauthorized(await pending.post("/api/notes", { title: "sneaky" }));
    expectUnauthorized(await pending.post("/api/auth/totp/setup"));
    expectUnauthorized(await pending.request("POST", "/api/auth/logout"));
    expect(await sessionExists(response.body.access_token)).toBe(true);
  });

  test("verify trades the pending token and the current code for a full token, revoking the pending one", async () => {
    const user = await enrolledUser("verify");
    const pending = await pendingToken(user);
    const code = codeForStep(user.secret, user.enrolledStep + 1);
    const response = await pending.post("/api/auth/totp/verify", { code });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(["access_token", "expires_at", "token_type", "totp_required"]);
    expect(response.body.totp_required).toBe(false);
    expect(response.body.token_type).toBe("bearer");
    expect(response.body.access_token).not.toBe(pending.token);
    expect(Math.abs(Date.parse(response.body.expires_at) - (Date.now() + 30 * 24 * 60 * 60_000))).toBeLessThan(60_000);
    // The pending token is gone, whatever code comes with it.
    expectUnauthorized(await pending.post("/api/auth/totp/verify", { code: codeForStep(user.secret, user.enrolledStep + 2) }));
    expect(await sessionExists(pending.token!)).toBe(false);
    const me = await api.withToken(response.body.access_token).get("/api/auth/me");
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username: user.username, totp_enabled: true });
  });

  test("verify refuses a full token with 401", async () => {
    const user = await enrolledUser("verifyfull");
    expectUnauthorized(await user.api.post("/api/auth/totp/verify", { code: codeForStep(user.secret, user.enrolledStep + 1) }));
    // That refusal spent nothing: the code still works in a real second step.
    const pending = await pendingToken(user);
    expect((await pending.post("/api/auth/totp/verify", { code: codeForStep(user.secret, user.enrolledStep + 1) })).status).toBe(200);
  });

  test("a totp_code in the login form gives the full token at once", async () => {
    const user = await enrolledUser("formcode");
    const response = await api.loginForm({ username: user.username, password: user.password, totp_code: codeForStep(user.secret, user.enrolledStep + 1) });
    expect(response.status).toBe(200);
    expect(response.body.totp_required).toBe(false);
    expect((await api.withToken(response.body.access_token).get("/api/auth/me")).status).toBe(200);
  });

  test("a wrong totp_code in the login form is a 401", async () => {
    const user = await enrolledUser("formwrong");
    expectUnauthorized(await api.loginForm({ username: user.username, password: user.password, totp_code: wrongCode(user.secret) }));
  });

  test("a wrong password with a right code is the usual credentials 401 and spends no code", async () => {
    const user = await enrolledUser("pwfirst");
    const code = codeForStep(user.secret, user.enrolledStep + 1);
    const wrong = await api.loginForm({ username: user.username, password: "not-the-password", totp_code: code });
    expectUnauthorized(wrong);
    const unknown = await api.loginForm({ username: `${user.username}x`, password: "not-the-password" });
    expect(wrong.body).toEqual(unknown.body);
    expect((await api.loginForm({ username: user.username, password: user.password, totp_code: code })).status).toBe(200);
  });

  test("the same code is accepted only once", async () => {
    const user = await enrolledUser("replay");
    const code = codeForStep(user.secret, user.enrolledStep + 1);
    expect((await api.loginForm({ username: user.username, password: user.password, totp_code: code })).status).toBe(200);
    expectUnauthorized(await api.loginForm({ username: user.username, password: user.password, totp_code: code }));
    const pending = await pendingToken(user);
    expectUnauthorized(await pending.post("/api/auth/totp/verify", { code }));
    // A newer step still works on the same pending token.
    expect((await pending.post("/api/auth/totp/verify", { code: codeForStep(user.secret, user.enrolledStep + 2) })).status).toBe(200);
  });

  test("the code enable spent cannot be replayed at login", async () => {
    const user = await enrolledUser("replayenable");
    expectUnauthorized(await api.loginForm({ username: user.username, password: user.password, totp_code: codeForStep(user.secret, user.enrolledStep) }));
  });

  test("at login a code from 30 s ago is accepted and one from 60 s ago is refused", async () => {
    const user = await enrolledUser("loginskew");
    // As if the last code had been used two minutes ago, so only the time window decides.
    await awayFromStepBoundary(5000);
    const step = currentTotpStep();
    await db.execute({ sql: "update users set totp_last_step = ? where id = ?", args: [step - 4, user.id] });
    const sixtySecondsAgo = codeForStep(user.secret, step - 2);
    if (![-1, 0, 1].some((offset) => codeForStep(user.secret, step + offset) === sixtySecondsAgo)) {
      expectUnauthorized(await api.loginForm({ username: user.username, password: user.password, totp_code: sixtySecondsAgo }));
    }
    const response = await api.loginForm({ username: user.username, password: user.password, totp_code: codeForStep(user.secret, step - 1) });
    expect(response.status).toBe(200);
    expect(response.body.totp_required).toBe(false);
    expect(Number((await userRow(user.id)).totp_last_step)).toBe(step - 1);
  });

  test("a totp_code sent for an account without TOTP is ignored", async () => {
    const { username, password } = await api.newUser("nototp");
    const response = await api.loginForm({ username, password, totp_code: "123456" });
    expect(response.status).toBe(200);
    expect(response.body.totp_required).toBe(false);
  });

  test("an expired pending token is a 401 at verify", async () => {
    const user = await enrolledUser("pendingexpired");
    const pending = await pendingToken(user);
    await expireSession(pending.token!);
    expectUnauthorized(await pending.post("/api/auth/totp/verify", { code: codeForStep(user.secret, user.enrolledStep + 1) }));
  });
});

describe("wrong second-factor codes", () => {
  // Each wrong code counts twice in the implementation: on the pending token (totp-verify.ts revokes it
  // at 5) and on the user's second-factor throttle (second-factor.ts blocks the user for 15 min at 5,
  // checked before the code, so even a right code then gets 429). Hence a fresh user per test.

  test("five wrong codes on one pending token revoke it", async () => {
    const user = await enrolledUser("fivewrong");
    const pending = await pendingToken(user);
    const wrong = wrongCode(user.secret);
    for (let attempt = 1; attempt <= 5; attempt++) {
      expectUnauthorized(await pending.post("/api/auth/totp/verify", { code: wrong }));
    }
    expect(await sessionExists(pending.token!)).toBe(false);
    // The token is gone, so authentication answers before any code or throttle check.
    expectUnauthorized(await pending.post("/api/auth/totp/verify", { code: codeForStep(user.secret, user.enrolledStep + 1) }));
    // The same five failures tripped the user's second-factor throttle: a new pending token meets it.
    expectThrottled(await (await pendingToken(user)).post("/api/auth/totp/verify", { code: codeForStep(user.secret, user.enrolledStep + 1) }));
  });

  test("after five wrong codes for a user even a correct code gets 429 with Retry-After", async () => {
    const user = await enrolledUser("throttle2fa");
    const wrong = wrongCode(user.secret);
    for (let attempt = 1; attempt <= 5; attempt++) {
      expectUnauthorized(await api.loginForm({ username: user.username, password: user.password, totp_code: wrong }));
    }
    const right = codeForStep(user.secret, user.enrolledStep + 1);
    expectThrottled(await api.loginForm({ username: user.username, password: user.password, totp_code: right }));
    expectThrottled(await api.loginForm({ username: user.username, password: user.password, totp_code: user.recoveryCodes[0]! }));
    // The password step still answers (the block is on the second factor), but verify is throttled too,
    // and a throttled attempt does not count against the pending token.
    const pending = await pendingToken(user);
    for (let attempt = 1; attempt <= 5; attempt++) expectThrottled(await pending.post("/api/auth/totp/verify", { code: right }));
    expect(await sessionExists(pending.token!)).toBe(true);
    // Disabling TOTP needs a second factor too, and is blocked the same way.
    expectThrottled(await user.api.post("/api/auth/totp/disable", { password: user.password, code: right }));
    // Nothing was spent while blocked.
    expect((await userRow(user.id)).totp_last_step).toBe(user.enrolledStep);
  });
});

describe("recovery codes", () => {
  test("one works once in the login form in place of a TOTP code", async () => {
    const user = await enrolledUser("rclogin");
    const [code] = user.recoveryCodes;
    const response = await api.loginForm({ username: user.username, password: user.password, totp_code: code! });
    expect(response.status).toBe(200);
    expect(response.body.totp_required).toBe(false);
    expectUnauthorized(await api.loginForm({ username: user.username, password: user.password, totp_code: code! }));
    const used = await db.execute({ sql: "select count(*) as n from recovery_codes where user_id = ? and used_at is not null", args: [user.id] });
    expect(Number(used.rows[0]!.n)).toBe(1);
  });

  test("one works once at verify, in any case and without its dash", async () => {
    const user = await enrolledUser("rcverify");
    const code = user.recoveryCodes[3]!;
    const typed = code.replace("-", "").toUpperCase();
    const response = await (await pendingToken(user)).post("/api/auth/totp/verify", { code: typed });
    expect(response.status).toBe(200);
    expect(response.body.totp_required).toBe(false);
    expectUnauthorized(await (await pendingToken(user)).post("/api/auth/totp/verify", { code }));
  });

  test("each is independent: using one leaves the others valid", async () => {
    const user = await enrolledUser("rcindep");
    for (const code of user.recoveryCodes.slice(0, 3)) {
      expect((await api.loginForm({ username: user.username, password: user.password, totp_code: code })).status).toBe(200);
    }
  });

  test("a code stored as a bare SHA-256 by an earlier version works once", async () => {
    const user = await enrolledUser("rclegacy");
    const legacy = "abcde-fghij";
    await db.execute({ sql: "insert into recovery_codes (user_id, code_hash) values (?, ?)", args: [user.id, sha256Hex("abcdefghij")] });
    expect((await api.loginForm({ username: user.username, password: user.password, totp_code: legacy })).status).toBe(200);
    expectUnauthorized(await api.loginForm({ username: user.username, password: user.password, totp_code: legacy }));
  });

  test("a recovery code does not enable TOTP", async () => {
    const { api: user } = await api.newUser("rcnoenable");
    await user.post("/api/auth/totp/setup");
    expectError(await user.post("/api/auth/totp/enable", { code: "abcde-fghij" }), 400, "BAD_REQUEST");
  });
});

describe("disabling TOTP", () => {
  test("with a wrong password is a 400 and keeps TOTP on", async () => {
    const user = await enrolledUser("disablepw");
    const code = codeForStep(user.secret, user.enrolledStep + 1);
    expectError(await user.api.post("/api/auth/totp/disable", { password: "not-the-password", code }), 400, "BAD_REQUEST");
    expect((await user.api.get("/api/auth/me")).body.totp_enabled).toBe(true);
  });

  test("wrong passwords count toward the second-factor throttle, so a token cannot guess passwords", async () => {
    const user = await enrolledUser("disableguess");
    const code = codeForStep(user.secret, user.enrolledStep + 1);
    for (let i = 0; i < 5; i++) {
      expectError(await user.api.post("/api/auth/totp/disable", { password: `guess-${i}-xxxx`, code }), 400, "BAD_REQUEST");
    }
    expectThrottled(await user.api.post("/api/auth/totp/disable", { password: user.password, code }));
    expect((await user.api.get("/api/auth/me")).body.totp_enabled).toBe(true);
  });

  test("with a wrong code is a 400 and keeps TOTP on", async () => {
    const user = await enrolledUser("disablecode");
    expectError(await user.api.post("/api/auth/totp/disable", { password: user.password, code: wrongCode(user.secret) }), 400, "BAD_REQUEST");
    expectError(await user.api.post("/api/auth/totp/disable", { password: user.password, code: "zzzzz-zzzzz" }), 400, "BAD_REQUEST");
    expect((await user.api.get("/api/auth/me")).body.totp_enabled).toBe(true);
  });

  test("with the password and a TOTP code answers 204, after which login needs no code", async () => {
    const user = await enrolledUser("disable");
    const pendingBefore = await pendingToken(user);
    const response = await user.api.post("/api/auth/totp/disable", { password: user.password, code: codeForStep(user.secret, user.enrolledStep + 1) });
    expect(response.status).toBe(204);
    expect(response.text).toBe("");
    expect((await user.api.get("/api/auth/me")).body.totp_enabled).toBe(false);
    const login = await api.loginForm({ username: user.username, password: user.password });
    expect(login.status).toBe(200);
    expect(login.body.totp_required).toBe(false);
    // A pending login started before the change cannot finish any more.
    expectUnauthorized(await pendingBefore.post("/api/auth/totp/verify", { code: codeForStep(user.secret, user.enrolledStep + 2) }));
    // The secret and the recovery codes are gone.
    expect((await userRow(user.id)).totp_secret).toBeNull();
    const codes = await db.execute({ sql: "select count(*) as n from recovery_codes where user_id = ?", args: [user.id] });
    expect(Number(codes.rows[0]!.n)).toBe(0);
    // Enrolment can start again.
    expect((await user.api.post("/api/auth/totp/setup")).status).toBe(200);
  });

  test("with the password and a recovery code answers 204", async () => {
    const user = await enrolledUser("disablerc");
    const response = await user.api.post("/api/auth/totp/disable", { password: user.password, code: user.recoveryCodes[9]! });
    expect(response.status).toBe(204);
    expect((await api.loginForm({ username: user.username, password: user.password })).body.totp_required).toBe(false);
  });

  test("when TOTP is not enabled is a 409", async () => {
    const { api: user, password } = await api.newUser("disablenone");
    expectError(await user.post("/api/auth/totp/disable", { password, code: "123456" }), 409, "CONFLICT");
    await user.post("/api/auth/totp/setup");
    expectError(await user.post("/api/auth/totp/disable", { password, code: "123456" }), 409, "CONFLICT");
  });
});

describe("bad requests to the TOTP endpoints", () => {
  let user: EnrolledUser;
  let fresh: Api;
  const endpoints = [
    ["setup", "/api/auth/totp/setup", undefined],
    ["enable", "/api/auth/totp/enable", { code: "123456" }],
    ["disable", "/api/auth/totp/disable", { password: "password-123", code: "123456" }],
    ["verify", "/api/auth/totp/verify", { code: "123456" }],
  ] as const;
  /** Full tokens past their expiry, one per endpoint by name (an expired session is deleted on first use). */
  const expiredTokens = new Map<string, string>();
  beforeAll(async () => {
    user = await enrolledUser("badinput");
    const created = await api.newUser("badfresh");
    fresh = created.api;
    for (const [name] of endpoints) {
      const token = await api.login(created.username, created.password);
      await expireSession(token);
      expiredTokens.set(name, token);
    }
  });

  test.each(endpoints)("%s without a token is a 401", async (_name, path, body) => {
    expectUnauthorized(await api.post(path, body));
  });

  test.each(endpoints)("%s with an unknown token is a 401", async (_name, path, body) => {
    expectUnauthorized(await api.withToken("c".repeat(39)).post(path, body));
  });

  test.each(endpoints)("%s with a malformed Authorization header is a 401", async (_name, path, body) => {
    const response = await api.request("POST", path, { json: body, headers: { authorization: "Basic dXNlcjpwYXNz" } });
    expectUnauthorized(response);
  });

  test.each(endpoints)("%s with an expired token is a 401", async (name, path, body) => {
    const token = expiredTokens.get(name)!;
    expect(await sessionExists(token)).toBe(true);
    expectUnauthorized(await api.withToken(token).post(path, body));
    // The token was sent and read as expired: its session is gone now.
    expect(await sessionExists(token)).toBe(false);
  });

  test.each(endpoints)("%s with a body over 2 MiB is a 413", async (_name, path) => {
    const response = await fresh.request("POST", path, oversizeBody());
    expectError(response, 413, "PAYLOAD_TOO_LARGE");
  });

  test.each(endpoints.slice(1))("%s with a text/plain body is a 415", async (_name, path, body) => {
    const response = await fresh.request("POST", path, { body: JSON.stringify(body), headers: { "content-type": "text/plain" } });
    expectError(response, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  test.each(endpoints.slice(1))("%s with malformed JSON is a 400", async (_name, path) => {
    const response = await fresh.request("POST", path, { body: '{"code": ', headers: { "content-type": "application/json" } });
    expectError(response, 400, "BAD_REQUEST");
  });

  test("enable without a code, with a too long or too short code is a 400 pointing at code", async () => {
    for (const body of [{}, { code: "1".repeat(33) }, { code: "12345" }, { code: 123456 }]) {
      const response = await fresh.post("/api/auth/totp/enable", body);
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.issues.map((issue: { path: unknown }) => issue.path)).toEqual([["code"]]);
    }
  });

  test("disable without password or code is a 400 listing each path", async () => {
    const response = await user.api.post("/api/auth/totp/disable", {});
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.issues.map((issue: { path: string[] }) => issue.path.join(".")).sort()).toEqual(["code", "password"]);
    const tooLong = await user.api.post("/api/auth/totp/disable", { password: user.password, code: "1".repeat(33) });
    expectError(tooLong, 400, "BAD_REQUEST");
    expect(tooLong.body.issues.map((issue: { path: unknown }) => issue.path)).toEqual([["code"]]);
  });

  test("verify with a pending token but no code, or a too long code, is a 400 and costs no attempt", async () => {
    const pending = await pendingToken(user);
    for (const body of [{}, { code: "1".repeat(33) }, { code: "" }]) {
      const response = await pending.post("/api/auth/totp/verify", body);
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.issues.map((issue: { path: unknown }) => issue.path)).toEqual([["code"]]);
    }
    const failures = await db.execute({ sql: "select failed_totp_attempts from sessions where id = ?", args: [sha256Hex(pending.token!)] });
    expect(Number(failures.rows[0]!.failed_totp_attempts)).toBe(0);
  });

  test("a too long totp_code in the login form is a 400 pointing at totp_code", async () => {
    const response = await api.loginForm({ username: user.username, password: user.password, totp_code: "1".repeat(33) });
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.issues.map((issue: { path: unknown }) => issue.path)).toEqual([["totp_code"]]);
  });

  test("GET on a TOTP endpoint is a 405", async () => {
    expectError(await fresh.get("/api/auth/totp/setup"), 405, "METHOD_NOT_SUPPORTED");
  });
});
