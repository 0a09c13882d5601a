import { createHash } from "node:crypto";
import { encodeBase32LowerCaseNoPadding } from "@oslojs/encoding";
import { and, eq, isNull, lte, or, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { packedRow } from "../../db/packed-row";
import { preparedPerDatabase } from "../../db/prepared";
import { readStatements } from "../../db/read-statements";
import { sessions, users } from "../../db/schema";
import { log } from "../../log";

// Lucia's session guide, as this service's contract shapes it: opaque tokens, only their SHA-256 kept.
const DAY_MS = 24 * 60 * 60 * 1000;
export const SESSION_LIFETIME_MS = 30 * DAY_MS;
const RENEW_WHEN_LEFT_MS = 15 * DAY_MS;
export const PENDING_TOTP_LIFETIME_MS = 5 * 60 * 1000;
/** `last_used_at` is written at most this often per session, so a busy client costs no write per request. */
export const SESSION_LAST_USED_RESOLUTION_MS = 60_000;
/** The longest User-Agent kept with a session. */
export const USER_AGENT_MAX_LENGTH = 256;

export interface Session {
  id: string;
  userId: number;
  expiresAt: number;
  pendingTotp: boolean;
  failedTotpAttempts: number;
}

export interface SessionUser {
  id: number;
  username: string;
  createdAt: number;
  totpEnabled: boolean;
}

/** 192 random bits, base32: comfortably over the contract's 160. */
export function generateSessionToken(): string {
  return encodeBase32LowerCaseNoPadding(crypto.getRandomValues(new Uint8Array(24)));
}

/** The native SHA-256: this runs on every authenticated request. */
export function sessionIdFromToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

// Every authenticated request runs the lookup (one JSON column, see packedRow; the ids are known
// without it); a renewal or an expiry is the rare second statement.
const sessionRow = packedRow({
  userId: sessions.userId,
  expiresAt: sessions.expiresAt,
  pendingTotp: sessions.pendingTotp,
  failedTotpAttempts: sessions.failedTotpAttempts,
  lastUsedAt: sessions.lastUsedAt,
  username: users.username,
  createdAt: users.createdAt,
  totpEnabled: users.totpEnabled,
});

const statements = preparedPerDatabase((db) => ({
  lookup: db
    .select({ row: sessionRow.column })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.id, sql.placeholder("id")))
    .prepare(),
  renew: db
    .update(sessions)
    .set({ expiresAt: sql`${sql.placeholder("expiresAt")}`, lastUsedAt: sql`${sql.placeholder("now")}` })
    .where(eq(sessions.id, sql.placeholder("id")))
    .prepare(),
  // Conditional, so processes that see the same stale value write it once between them.
  touch: db
    .update(sessions)
    .set({ lastUsedAt: sql`${sql.placeholder("now")}` })
    .where(and(eq(sessions.id, sql.placeholder("id")), or(isNull(sessions.lastUsedAt), lte(sessions.lastUsedAt, sql.placeholder("staleBefore")))))
    .prepare(),
  remove: db.delete(sessions).where(eq(sessions.id, sql.placeholder("id"))).prepare(),
}));

export async function createSession(
  db: Database,
  userId: number,
  options: { pendingTotp: boolean; userAgent?: string | null; now?: number },
): Promise<{ token: string; session: Session }> {
  const now = options.now ?? Date.now();
  const token = generateSessionToken();
  const session: Session = {
    id: sessionIdFromToken(token),
    userId,
    expiresAt: now + (options.pendingTotp ? PENDING_TOTP_LIFETIME_MS : SESSION_LIFETIME_MS),
    pendingTotp: options.pendingTotp,
    failedTotpAttempts: 0,
  };
  await db.insert(sessions).values({ ...session, createdAt: now, lastUsedAt: now, userAgent: keptUserAgent(options.userAgent) });
  return { token, session };
}

/** The User-Agent as a session keeps it: control characters out, trimmed, at most 256 characters; null when empty. */
export function keptUserAgent(userAgent: string | null | undefined): string | null {
  const kept = (userAgent ?? "").replace(/[\u0000-\u001f\u007f]/g, " ").trim().slice(0, USER_AGENT_MAX_LENGTH);
  return kept === "" ? null : kept;
}

/**
 * The session and user behind a token, in one joined read; a full session past half its life is
 * renewed, and its `last_used_at` moved on at most once a minute (the only writes), an expired one deleted.
 */
export async function validateSessionToken(
  db: Database,
  token: string,
  now = Date.now(),
): Promise<{ session: Session; user: SessionUser } | null> {
  const id = sessionIdFromToken(token);
  const { lookup, renew, touch } = statements(db);
  const found = await readStatements(db).row(lookup, { id });
  if (!found) return null;
  const fields = sessionRow.unpack(found[0] as string);
  const row = {
    session: { id, userId: fields.userId, expiresAt: fields.expiresAt, pendingTotp: fields.pendingTotp, failedTotpAttempts: fields.failedTotpAttempts },
    user: { id: fields.userId, username: fields.username, createdAt: fields.createdAt, totpEnabled: fields.totpEnabled },
  };
  if (now >= row.session.expiresAt) {
    await invalidateSession(db, id);
    return null;
  }
  if (row.session.pendingTotp) return row;
  if (row.session.expiresAt - now < RENEW_WHEN_LEFT_MS) {
    row.session.expiresAt = now + SESSION_LIFETIME_MS;
    await renew.run({ id, expiresAt: row.session.expiresAt, now });
  } else if (fields.lastUsedAt === null || now - fields.lastUsedAt >= SESSION_LAST_USED_RESOLUTION_MS) {
    // Best effort: a busy database must not turn a valid request away for a bookkeeping write.
    await touch.run({ id, now, staleBefore: now - SESSION_LAST_USED_RESOLUTION_MS }).catch((error: unknown) => log.debug("session last_used_at not written", error));
  }
  return row;
}

export async function invalidateSession(db: Database, sessionId: string): Promise<void> {
  await statements(db).remove.run({ id: sessionId });
}

/** Counts a wrong second-factor code on a pending session; returns the new count. */
export async function recordFailedTotpAttempt(db: Database, sessionId: string): Promise<number> {
  const [row] = await db
    .update(sessions)
    .set({ failedTotpAttempts: sql`${sessions.failedTotpAttempts} + 1` })
    .where(and(eq(sessions.id, sessionId), eq(sessions.pendingTotp, true)))
    .returning({ failed: sessions.failedTotpAttempts });
  return row?.failed ?? 0;
}

/** Deletes expired sessions, pending TOTP logins included, that nobody presented again (validation deletes the rest). */
export async function deleteExpiredSessions(db: Database, now = Date.now()): Promise<number> {
  const result = await db.delete(sessions).where(lte(sessions.expiresAt, now));
  return result.rowsAffected;
}
