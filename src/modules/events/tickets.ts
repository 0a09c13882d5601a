import { eq, lte } from "drizzle-orm";
import { eventTickets } from "../../db/schema";
import type { Database } from "../../db/client";
import { generateSessionToken, sessionIdFromToken } from "../auth/sessions";

export const TICKET_LIFETIME_MS = 60_000;

/**
 * A ticket for one `GET /api/events?ticket=` (the browser's EventSource cannot send a bearer
 * header): 192 random bits, valid 60 s, single use, and worth nothing on any other route. Made and
 * hashed like a session token; only the hash is stored.
 */
export async function issueEventTicket({
  ctx,
  now = Date.now(),
}: {
  ctx: { db: Database; userId: number; session: { id: string } };
  now?: number;
}): Promise<{ ticket: string; expires_at: string }> {
  const ticket = generateSessionToken();
  const expiresAt = now + TICKET_LIFETIME_MS;
  await ctx.db.batch([
    // Unused tickets would otherwise pile up; they are few and indexed by expiry.
    ctx.db.delete(eventTickets).where(lte(eventTickets.expiresAt, now)),
    ctx.db.insert(eventTickets).values({ id: sessionIdFromToken(ticket), userId: ctx.userId, sessionId: ctx.session.id, expiresAt }),
  ]);
  return { ticket, expires_at: new Date(expiresAt).toISOString() };
}

/**
 * The ticket's user and the login session that issued it (the stream lives as long as that session),
 * or null when it is unknown, used or expired; either way it cannot be used again.
 */
export async function redeemEventTicket(db: Database, ticket: string, now = Date.now()): Promise<{ userId: number; sessionId: string } | null> {
  const [row] = await db
    .delete(eventTickets)
    .where(eq(eventTickets.id, sessionIdFromToken(ticket)))
    .returning({ userId: eventTickets.userId, sessionId: eventTickets.sessionId, expiresAt: eventTickets.expiresAt });
  return row && now < row.expiresAt ? { userId: row.userId, sessionId: row.sessionId } : null;
}
