import { and, desc, eq, gt, ne } from "drizzle-orm";
import type { Database } from "../../db/client";
import { oauthLogins, sessions } from "../../db/schema";
import type { SessionContext } from "../context";
import { NotFoundError } from "../errors";
import type { LoginSessionItem } from "./schemas";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The account's live login sessions (finished logins, not those waiting for their second factor), newest first. */
export async function listLoginSessions({ ctx, now = Date.now() }: { ctx: SessionContext; now?: number }): Promise<{ items: LoginSessionItem[] }> {
  const rows = await ctx.db
    .select({
      publicId: sessions.publicId,
      id: sessions.id,
      createdAt: sessions.createdAt,
      lastUsedAt: sessions.lastUsedAt,
      expiresAt: sessions.expiresAt,
      userAgent: sessions.userAgent,
    })
    .from(sessions)
    .where(and(eq(sessions.userId, ctx.userId), eq(sessions.pendingTotp, false), gt(sessions.expiresAt, now)))
    .orderBy(desc(sessions.createdAt), desc(sessions.publicId));
  return {
    items: rows.map((row) => ({
      id: row.publicId,
      created_at: iso(row.createdAt)!,
      last_used_at: iso(row.lastUsedAt),
      expires_at: iso(row.expiresAt)!,
      user_agent: row.userAgent,
      current: row.id === ctx.session.id,
    })),
  };
}

/**
 * Ends one of the account's login sessions (the current one too, as a logout would): its token is
 * refused by the next request in every API process, and its open event streams close.
 */
export async function endLoginSession({ ctx, input }: { ctx: SessionContext; input: { id: number } }): Promise<void> {
  const ended = await ctx.db
    .delete(sessions)
    .where(and(eq(sessions.publicId, input.id), eq(sessions.userId, ctx.userId), eq(sessions.pendingTotp, false)))
    .returning({ id: sessions.publicId });
  if (ended.length === 0) throw new NotFoundError(`Login session ${input.id}`);
}

/** Ends every login of the account but the current session: the others' sessions and logins in progress on the connectors' page. */
export async function endOtherLoginSessions({ ctx }: { ctx: SessionContext }): Promise<void> {
  await ctx.db.batch(otherLoginsEnd(ctx.db, ctx.userId, ctx.session.id));
}

/** The statements that end the account's logins other than `keepSessionId` (run with whatever change calls for it). */
export function otherLoginsEnd(db: Database, userId: number, keepSessionId: string) {
  return [
    db.delete(sessions).where(and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId))),
    db.delete(oauthLogins).where(eq(oauthLogins.userId, userId)),
  ] as const;
}

