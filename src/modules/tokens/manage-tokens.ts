import { and, desc, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { accessTokens, users } from "../../db/schema";
import { checkSecondFactor } from "../auth/second-factor";
import type { AuthedContext } from "../context";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors";
import type { CreatedToken, CreateTokenInput, TokenListItem } from "./schemas";
import { accessTokenHash, generateAccessToken, shownPrefix } from "./token-secret";

export const MAX_LIVE_TOKENS = 100;
const DAY_MS = 24 * 60 * 60 * 1000;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const live = (now: number) => or(isNull(accessTokens.expiresAt), gt(accessTokens.expiresAt, now));

/**
 * A new personal access token, shown once. A TOTP account confirms with a code, so a stolen
 * session alone cannot mint a lasting credential.
 */
export async function createAccessToken({ ctx, input, now = Date.now() }: { ctx: AuthedContext; input: CreateTokenInput; now?: number }): Promise<CreatedToken> {
  if (ctx.user.totpEnabled) await confirmSecondFactor(ctx, input.code);
  const token = generateAccessToken();
  const expiresAt = input.expires_in_days === null ? null : now + input.expires_in_days * DAY_MS;
  const scopes = JSON.stringify(input.scopes);
  // Counted and inserted in one statement, so concurrent creations cannot pass the cap together.
  const inserted = await ctx.db.all<{ id: number }>(sql`
    insert into ${accessTokens} (user_id, token_hash, name, scopes, prefix, kind, created_at, expires_at)
    select ${ctx.userId}, ${accessTokenHash(token)}, ${input.name}, ${scopes}, ${shownPrefix(token)}, 'personal', ${now}, ${expiresAt}
    where (select count(*) from ${accessTokens} where user_id = ${ctx.userId} and (expires_at is null or expires_at > ${now})) < ${MAX_LIVE_TOKENS}
    returning id`);
  if (inserted.length === 0) {
    throw new ConflictError(`You have ${MAX_LIVE_TOKENS} live access tokens, the most an account may hold; revoke one first`);
  }
  return {
    id: inserted[0]!.id,
    name: input.name,
    scopes: input.scopes,
    prefix: shownPrefix(token),
    token,
    created_at: iso(now)!,
    expires_at: iso(expiresAt),
    last_used_at: null,
  };
}

async function confirmSecondFactor(ctx: AuthedContext, code: string | undefined): Promise<void> {
  if (!code) throw new InvalidInputError("This account uses two-factor authentication: send `code` (a TOTP or recovery code) to create a token");
  const [user] = await ctx.db
    .select({ id: users.id, totpSecret: users.totpSecret, totpLastStep: users.totpLastStep })
    .from(users)
    .where(eq(users.id, ctx.userId));
  if (!user || !(await checkSecondFactor(ctx, user, code, { allowRecoveryCode: true }))) {
    throw new InvalidInputError("Invalid two-factor code");
  }
}

/** The user's live tokens (personal and connector grants), newest first; never the secret. */
export async function listAccessTokens({ ctx, now = Date.now() }: { ctx: { db: Database; userId: number }; now?: number }): Promise<{ items: TokenListItem[] }> {
  const rows = await ctx.db
    .select()
    .from(accessTokens)
    .where(and(eq(accessTokens.userId, ctx.userId), live(now)))
    .orderBy(desc(accessTokens.createdAt), desc(accessTokens.id));
  return {
    items: rows.map((row) => ({
      id: row.id,
      name: row.name,
      scopes: JSON.parse(row.scopes),
      prefix: row.prefix,
      kind: row.kind,
      client_name: row.clientName,
      created_at: iso(row.createdAt)!,
      expires_at: iso(row.expiresAt),
      last_used_at: iso(row.lastUsedAt),
    })),
  };
}

/** Deletes the token: the next request that carries it, in any process, is refused. */
export async function revokeAccessToken({ ctx, input }: { ctx: { db: Database; userId: number }; input: { id: number } }): Promise<void> {
  const deleted = await ctx.db
    .delete(accessTokens)
    .where(and(eq(accessTokens.id, input.id), eq(accessTokens.userId, ctx.userId)))
    .returning({ id: accessTokens.id });
  if (deleted.length === 0) throw new NotFoundError(`Access token ${input.id}`);
}
