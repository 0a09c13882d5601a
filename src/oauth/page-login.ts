import { and, eq, lt } from "drizzle-orm";
import type { Database } from "../db/client";
import { oauthLogins, users } from "../db/schema";
import { checkPassword } from "../modules/auth/login";
import { checkSecondFactor } from "../modules/auth/second-factor";
import type { RequestContext } from "../modules/context";
import { UnauthenticatedError } from "../modules/errors";
import { randomSecret, sameSecret, secretHash } from "./secrets";

/** A login on the authorization page lasts this long: enough to read the consent and choose. */
export const PAGE_LOGIN_TTL_MS = 10 * 60_000;

export interface PageLogin {
  idHash: string;
  userId: number;
  username: string;
  csrfToken: string;
  pendingTotp: boolean;
}

/**
 * The page's password step, under the same throttle as `POST /api/auth/login`. Returns the cookie
 * secret of a new page login, pending its second factor when the account has TOTP.
 */
export async function startPageLogin(ctx: RequestContext, username: string, password: string, now = Date.now()): Promise<{ secret: string; pendingTotp: boolean }> {
  const user = await checkPassword(ctx, username, password);
  const secret = randomSecret();
  await ctx.db.delete(oauthLogins).where(lt(oauthLogins.expiresAt, now));
  await ctx.db.insert(oauthLogins).values({ idHash: secretHash(secret), userId: user.id, csrfToken: randomSecret(), pendingTotp: user.totpEnabled, expiresAt: now + PAGE_LOGIN_TTL_MS });
  return { secret, pendingTotp: user.totpEnabled };
}

/** The live page login behind a cookie secret, or null. */
export async function findPageLogin(db: Database, secret: string | null, now = Date.now()): Promise<PageLogin | null> {
  if (!secret) return null;
  const [row] = await db
    .select({ login: oauthLogins, username: users.username })
    .from(oauthLogins)
    .innerJoin(users, eq(users.id, oauthLogins.userId))
    .where(eq(oauthLogins.idHash, secretHash(secret)));
  if (!row || now >= row.login.expiresAt) return null;
  return { idHash: row.login.idHash, userId: row.login.userId, username: row.username, csrfToken: row.login.csrfToken, pendingTotp: row.login.pendingTotp };
}

/** Whether the form's CSRF token is the one bound to this login. */
export function csrfMatches(login: PageLogin, token: string | null): boolean {
  return token !== null && sameSecret(login.csrfToken, token);
}

/** The second step for a TOTP account: a TOTP or recovery code, under the per-user second-factor throttle. */
export async function completeSecondFactor(ctx: RequestContext, login: PageLogin, code: string): Promise<void> {
  const [user] = await ctx.db.select({ id: users.id, totpSecret: users.totpSecret, totpLastStep: users.totpLastStep }).from(users).where(eq(users.id, login.userId));
  if (!user || !(await checkSecondFactor(ctx, user, code.trim(), { allowRecoveryCode: true }))) throw new UnauthenticatedError("Invalid two-factor code");
  await ctx.db.update(oauthLogins).set({ pendingTotp: false }).where(and(eq(oauthLogins.idHash, login.idHash), eq(oauthLogins.pendingTotp, true)));
}
