import { and, eq, isNull, lt, ne, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { accessTokens, oauthCodes, oauthGrants, oauthRefreshTokens } from "../db/schema";
import type { Scope } from "../modules/tokens/scopes";
import { accessTokenHash, generateAccessToken, shownPrefix } from "../modules/tokens/token-secret";
import { apiResource, grantKindFor, mcpResource } from "./metadata";
import { OAuthError } from "./oauth-error";
import { pkceMatches, PKCE_VERIFIER, randomSecret, secretHash } from "./secrets";

export const CODE_TTL_MS = 60_000;
export const ACCESS_TOKEN_TTL_S = 3600;
const REFRESH_TTL_MS = 90 * 24 * 3600 * 1000;
/** Spent and expired codes are kept this long, so a replayed code is recognised (and revokes its grant) rather than unknown. */
const CODE_KEPT_MS = 10 * 60_000;
const REFRESH_PREFIX = "rhzr_";

export interface TokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** A code for what the person allowed: single-use, 60 s, bound to the client, redirect URI, PKCE challenge and resource. */
export async function issueCode(
  db: Database,
  grant: { clientId: string; clientName: string; userId: number; redirectUri: string; codeChallenge: string; scopes: Scope[]; resource: string | null },
  now = Date.now(),
): Promise<string> {
  const code = randomSecret();
  await db.delete(oauthCodes).where(lt(oauthCodes.expiresAt, now - CODE_KEPT_MS));
  await db.insert(oauthCodes).values({ codeHash: secretHash(code), ...grant, scopes: JSON.stringify(grant.scopes), expiresAt: now + CODE_TTL_MS });
  return code;
}

/** Deletes the grant's access-token row (a connector's or a clipper's); its OAuth rows (refresh tokens included) go with it. */
async function revokeGrant(db: Database, tokenId: number | null): Promise<void> {
  if (tokenId !== null) await db.delete(accessTokens).where(and(eq(accessTokens.id, tokenId), ne(accessTokens.kind, "personal")));
}

/** A resource named at the token endpoint must be one of this server's, and the one the grant is for (RFC 8707). */
function checkResource(resource: string | null, granted: string | null, publicUrl: string): void {
  if (resource === null) return;
  if (grantKindFor(resource, publicUrl) === null) {
    throw new OAuthError("invalid_target", `This server issues tokens only for ${mcpResource(publicUrl)} and ${apiResource(publicUrl)}`);
  }
  const grantedResource = granted ?? mcpResource(publicUrl);
  if (resource !== grantedResource) throw new OAuthError("invalid_target", `This grant is for ${grantedResource}, not ${resource}`);
}

/** `grant_type=authorization_code`: the code, once, from the client it was issued to, with its PKCE verifier. */
export async function exchangeCode(
  db: Database,
  input: { code: string; clientId: string; redirectUri: string; codeVerifier: string; resource: string | null },
  publicUrl: string,
  now = Date.now(),
): Promise<TokenAnswer> {
  if (!PKCE_VERIFIER.test(input.codeVerifier)) throw new OAuthError("invalid_request", "`code_verifier` must be 43..128 characters of [A-Za-z0-9._~-] (RFC 7636)");
  const [row] = await db.select().from(oauthCodes).where(eq(oauthCodes.codeHash, secretHash(input.code)));
  if (!row) throw new OAuthError("invalid_grant", "Unknown authorization code");
  if (row.clientId !== input.clientId) throw new OAuthError("invalid_grant", "This authorization code was issued to another client");
  if (row.usedAt !== null) {
    // A code comes back only if it leaked: what it was exchanged for is revoked (OAuth 2.1 section 4.1.3).
    await revokeGrant(db, row.grantTokenId);
    throw new OAuthError("invalid_grant", "This authorization code has already been used; the tokens issued for it are revoked");
  }
  if (now >= row.expiresAt) throw new OAuthError("invalid_grant", "This authorization code has expired (codes live 60 seconds)");
  if (row.redirectUri !== input.redirectUri) throw new OAuthError("invalid_grant", "`redirect_uri` does not match the authorization request's");
  checkResource(input.resource, row.resource, publicUrl);
  if (!pkceMatches(input.codeVerifier, row.codeChallenge)) throw new OAuthError("invalid_grant", "`code_verifier` does not match the code challenge");

  const scopes = JSON.parse(row.scopes) as Scope[];
  const access = generateAccessToken();
  const refresh = randomSecret(REFRESH_PREFIX);
  const issued = await db.transaction(async (tx) => {
    // Conditional, so two exchanges racing with one code cannot both win.
    const spent = await tx
      .update(oauthCodes)
      .set({ usedAt: now })
      .where(and(eq(oauthCodes.codeHash, row.codeHash), isNull(oauthCodes.usedAt)))
      .returning({ codeHash: oauthCodes.codeHash });
    if (spent.length === 0) return null;
    const [token] = await tx
      .insert(accessTokens)
      .values({
        userId: row.userId,
        tokenHash: accessTokenHash(access),
        name: row.clientName.slice(0, 64),
        scopes: row.scopes,
        prefix: shownPrefix(access),
        // A grant for the REST API is the browser extension's (a clipper); one for /mcp, or for no named resource, a connector's.
        kind: grantKindFor(row.resource, publicUrl) ?? "connector",
        clientName: row.clientName,
        createdAt: now,
        expiresAt: now + REFRESH_TTL_MS,
      })
      .returning({ id: accessTokens.id });
    await tx.insert(oauthGrants).values({ tokenId: token!.id, clientId: row.clientId, accessExpiresAt: now + ACCESS_TOKEN_TTL_S * 1000, resource: row.resource });
    await tx.insert(oauthRefreshTokens).values({ tokenHash: secretHash(refresh), grantTokenId: token!.id, expiresAt: now + REFRESH_TTL_MS });
    await tx.update(oauthCodes).set({ grantTokenId: token!.id }).where(eq(oauthCodes.codeHash, row.codeHash));
    return token!.id;
  });
  if (issued === null) throw new OAuthError("invalid_grant", "This authorization code has already been used");
  return { access_token: access, token_type: "Bearer", expires_in: ACCESS_TOKEN_TTL_S, refresh_token: refresh, scope: scopes.join(" ") };
}

/**
 * `grant_type=refresh_token`: a new access token and a new refresh token; the old refresh token is
 * spent. A spent one presented again means it leaked, so the whole grant is revoked (RFC 9700 section 4.14.2).
 */
export async function refreshGrant(
  db: Database,
  input: { refreshToken: string; clientId: string; scope: string | null; resource: string | null },
  publicUrl: string,
  now = Date.now(),
): Promise<TokenAnswer> {
  const [row] = await db
    .select({ refresh: oauthRefreshTokens, grant: oauthGrants, scopes: accessTokens.scopes })
    .from(oauthRefreshTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.tokenId, oauthRefreshTokens.grantTokenId))
    .innerJoin(accessTokens, eq(accessTokens.id, oauthRefreshTokens.grantTokenId))
    .where(eq(oauthRefreshTokens.tokenHash, secretHash(input.refreshToken)));
  if (!row) throw new OAuthError("invalid_grant", "Unknown, expired or revoked refresh token");
  if (row.grant.clientId !== input.clientId) throw new OAuthError("invalid_grant", "This refresh token was issued to another client");
  if (row.refresh.usedAt !== null) {
    await revokeGrant(db, row.grant.tokenId);
    throw new OAuthError("invalid_grant", "This refresh token was already used; the grant is revoked (sign in again to reconnect)");
  }
  if (now >= row.refresh.expiresAt) throw new OAuthError("invalid_grant", "This refresh token has expired");
  checkResource(input.resource, row.grant.resource, publicUrl);
  const scopes = JSON.parse(row.scopes) as Scope[];
  if (input.scope !== null && !input.scope.split(" ").filter(Boolean).every((scope) => (scopes as string[]).includes(scope))) {
    throw new OAuthError("invalid_scope", `A refresh cannot widen the granted scopes (${scopes.join(" ")})`);
  }

  const access = generateAccessToken();
  const refresh = randomSecret(REFRESH_PREFIX);
  const rotated = await db.transaction(async (tx) => {
    const spent = await tx
      .update(oauthRefreshTokens)
      .set({ usedAt: now })
      .where(and(eq(oauthRefreshTokens.tokenHash, row.refresh.tokenHash), isNull(oauthRefreshTokens.usedAt)))
      .returning({ tokenHash: oauthRefreshTokens.tokenHash });
    if (spent.length === 0) return false;
    await tx
      .update(accessTokens)
      .set({ tokenHash: accessTokenHash(access), prefix: shownPrefix(access), expiresAt: now + REFRESH_TTL_MS })
      .where(eq(accessTokens.id, row.grant.tokenId));
    await tx.update(oauthGrants).set({ accessExpiresAt: now + ACCESS_TOKEN_TTL_S * 1000 }).where(eq(oauthGrants.tokenId, row.grant.tokenId));
    await tx.insert(oauthRefreshTokens).values({ tokenHash: secretHash(refresh), grantTokenId: row.grant.tokenId, expiresAt: now + REFRESH_TTL_MS });
    return true;
  });
  if (!rotated) {
    await revokeGrant(db, row.grant.tokenId);
    throw new OAuthError("invalid_grant", "This refresh token was already used; the grant is revoked (sign in again to reconnect)");
  }
  return { access_token: access, token_type: "Bearer", expires_in: ACCESS_TOKEN_TTL_S, refresh_token: refresh, scope: scopes.join(" ") };
}

/** RFC 7009: a connector's (or clipper's) access or refresh token ends its whole grant; anything else is ignored (still 200). */
export async function revokeToken(db: Database, token: string): Promise<void> {
  if (token.startsWith(REFRESH_PREFIX)) {
    const [row] = await db.select({ tokenId: oauthRefreshTokens.grantTokenId }).from(oauthRefreshTokens).where(eq(oauthRefreshTokens.tokenHash, secretHash(token)));
    await revokeGrant(db, row?.tokenId ?? null);
    return;
  }
  await db.delete(accessTokens).where(and(eq(accessTokens.tokenHash, accessTokenHash(token)), ne(accessTokens.kind, "personal")));
}

/** How many live tokens (personal, connector and clipper) the user holds, against the contract's cap of 100. */
export async function liveTokenCount(db: Database, userId: number, now = Date.now()): Promise<number> {
  const [row] = await db.all<{ count: number }>(sql`select count(*) as count from ${accessTokens} where user_id = ${userId} and (expires_at is null or expires_at > ${now})`);
  return row?.count ?? 0;
}
