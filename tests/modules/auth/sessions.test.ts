import { describe, expect, test } from "bun:test";
import path from "node:path";
import { eq } from "drizzle-orm";
import { openNotesDatabase, type NotesDatabase } from "../../../src/db/client";
import { sessions, users } from "../../../src/db/schema";
import { createSession, PENDING_TOTP_LIFETIME_MS, SESSION_LIFETIME_MS, validateSessionToken } from "../../../src/modules/auth/sessions";
import { directoryForThisFile } from "../../support/temporary-directory";

const DAY = 24 * 60 * 60 * 1000;

const databases: NotesDatabase[] = [];
const dir = directoryForThisFile("rhizome-sessions-", { beforeRemoval: async () => databases.forEach((database) => database.close()) });

async function openWithUser(name: string) {
  const database = await openNotesDatabase({ url: `file:${path.join(dir, `${name}.db`)}` });
  databases.push(database);
  const [user] = await database.db.insert(users).values({ username: name, usernameKey: name, passwordHash: "x", createdAt: 1 }).returning({ id: users.id });
  return { db: database.db, userId: user!.id };
}

async function storedExpiry(db: NotesDatabase["db"], id: string) {
  const [row] = await db.select({ expiresAt: sessions.expiresAt }).from(sessions).where(eq(sessions.id, id));
  return row?.expiresAt;
}

describe("validateSessionToken", () => {
  test("gives the session and its user, and writes nothing while more than 15 days are left", async () => {
    const { db, userId } = await openWithUser("fresh");
    const now = Date.now();
    const { token, session } = await createSession(db, userId, { pendingTotp: false, now });
    const validated = await validateSessionToken(db, token, now + 14 * DAY);
    expect(validated).toEqual({ session, user: { id: userId, username: "fresh", createdAt: 1, totpEnabled: false } });
    expect(await storedExpiry(db, session.id)).toBe(now + SESSION_LIFETIME_MS);
  });

  test("renews a full session with less than 15 days left to 30 days from now", async () => {
    const { db, userId } = await openWithUser("renewed");
    const now = Date.now();
    const { token, session } = await createSession(db, userId, { pendingTotp: false, now });
    const later = now + 16 * DAY;
    const validated = await validateSessionToken(db, token, later);
    expect(validated!.session.expiresAt).toBe(later + SESSION_LIFETIME_MS);
    expect(await storedExpiry(db, session.id)).toBe(later + SESSION_LIFETIME_MS);
  });

  test("never renews a pending second-factor session, and deletes any session once expired", async () => {
    const { db, userId } = await openWithUser("pending");
    const now = Date.now();
    const pending = await createSession(db, userId, { pendingTotp: true, now });
    expect((await validateSessionToken(db, pending.token, now + 60_000))!.session.expiresAt).toBe(now + PENDING_TOTP_LIFETIME_MS);
    expect(await validateSessionToken(db, pending.token, now + PENDING_TOTP_LIFETIME_MS)).toBeNull();
    expect(await storedExpiry(db, pending.session.id)).toBeUndefined();
    expect(await validateSessionToken(db, "not-a-token", now)).toBeNull();
  });

  test("its prepared statements belong to their database: two open at once never see each other's sessions", async () => {
    const first = await openWithUser("first");
    const second = await openWithUser("second");
    const inFirst = await createSession(first.db, first.userId, { pendingTotp: false });
    const inSecond = await createSession(second.db, second.userId, { pendingTotp: false });
    expect((await validateSessionToken(first.db, inFirst.token))!.user.username).toBe("first");
    expect((await validateSessionToken(second.db, inSecond.token))!.user.username).toBe("second");
    expect(await validateSessionToken(first.db, inSecond.token)).toBeNull();
    expect(await validateSessionToken(second.db, inFirst.token)).toBeNull();
  });
});
