import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openNotesDatabase, type NotesDatabase } from "../../../src/db/client";
import { accessTokens, oauthGrants, sessions } from "../../../src/db/schema";
import { credentialKey, liveCredentials, type StreamCredential } from "../../../src/modules/events/stream-credential";

let dataDir: string;
let notes: NotesDatabase;
let userId: number;
const NOW = 1_000_000;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-stream-credentials-"));
  notes = await openNotesDatabase({ url: `file:${path.join(dataDir, "rhizome.db")}` });
  const result = await notes.client.execute("insert into users (username, username_key, password_hash, created_at) values ('ada', 'ada', 'x', 0) returning id");
  userId = Number(result.rows[0]!.id);
});
afterAll(() => {
  notes.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const session = (sessionId: string): StreamCredential => ({ kind: "session", sessionId });
const token = (tokenHash: string): StreamCredential => ({ kind: "access_token", tokenHash });

async function addSession(id: string, fields: { expiresAt?: number; pendingTotp?: boolean } = {}) {
  await notes.db.insert(sessions).values({ id, userId, expiresAt: fields.expiresAt ?? NOW + 1, pendingTotp: fields.pendingTotp ?? false, createdAt: 0 });
}
async function addToken(tokenHash: string, fields: { expiresAt?: number | null; accessExpiresAt?: number } = {}) {
  const [row] = await notes.db
    .insert(accessTokens)
    .values({ userId, tokenHash, name: tokenHash, scopes: "[]", prefix: "x", kind: fields.accessExpiresAt === undefined ? "personal" : "connector", createdAt: 0, expiresAt: fields.expiresAt ?? null })
    .returning({ id: accessTokens.id });
  if (fields.accessExpiresAt !== undefined) await notes.db.insert(oauthGrants).values({ tokenId: row!.id, clientId: "c", accessExpiresAt: fields.accessExpiresAt });
}

describe("the credentials open streams live by", () => {
  test("a login stands until it is logged out or expires, and never while it waits for its second factor", async () => {
    await addSession("s-live");
    await addSession("s-expired", { expiresAt: NOW });
    await addSession("s-pending", { pendingTotp: true });
    const asked = ["s-live", "s-expired", "s-pending", "s-logged-out"].map(session);
    expect(await liveCredentials(notes.db, asked, NOW)).toEqual(new Set([credentialKey(session("s-live"))]));
  });

  test("an access token stands until it is revoked or expires; a connector's, until its hour is up", async () => {
    await addToken("t-forever");
    await addToken("t-later", { expiresAt: NOW + 1 });
    await addToken("t-expired", { expiresAt: NOW });
    await addToken("t-connector", { expiresAt: NOW + 1, accessExpiresAt: NOW + 1 });
    await addToken("t-connector-hour-up", { expiresAt: NOW + 1, accessExpiresAt: NOW });
    const asked = ["t-forever", "t-later", "t-expired", "t-connector", "t-connector-hour-up", "t-revoked"].map(token);
    expect(await liveCredentials(notes.db, asked, NOW)).toEqual(new Set(["t-forever", "t-later", "t-connector"].map((hash) => credentialKey(token(hash)))));
  });

  test("a session id and a token hash that are the same text are told apart", async () => {
    await addSession("same");
    expect(await liveCredentials(notes.db, [session("same"), token("same")], NOW)).toEqual(new Set([credentialKey(session("same"))]));
  });

  test("thousands of streams are checked, past the size of one read", async () => {
    const ids = Array.from({ length: 1_201 }, (_, index) => `many-${index}`);
    await notes.db.insert(sessions).values(ids.filter((_, index) => index % 2 === 0).map((id) => ({ id, userId, expiresAt: NOW + 1, createdAt: 0 })));
    const live = await liveCredentials(notes.db, [...ids.map(session), ...ids.map(session)], NOW);
    expect(live.size).toBe(601);
    expect(live.has(credentialKey(session("many-1200")))).toBe(true);
    expect(live.has(credentialKey(session("many-1199")))).toBe(false);
  });
});
