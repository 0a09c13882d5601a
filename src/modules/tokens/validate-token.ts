import { eq, isNull, lte, or, sql, and } from "drizzle-orm";
import type { Database } from "../../db/client";
import { packedRow } from "../../db/packed-row";
import { preparedPerDatabase } from "../../db/prepared";
import { readStatements } from "../../db/read-statements";
import { accessTokens, oauthGrants, users } from "../../db/schema";
import { log } from "../../log";
import type { Authenticated } from "./credential";
import type { Scope } from "./scopes";
import { accessTokenHash } from "./token-secret";

/** `last_used_at` is written at most this often per token, so a busy script costs no write per request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

const tokenRow = packedRow({
  id: accessTokens.id,
  userId: accessTokens.userId,
  scopes: accessTokens.scopes,
  kind: accessTokens.kind,
  name: accessTokens.name,
  clientName: accessTokens.clientName,
  expiresAt: accessTokens.expiresAt,
  lastUsedAt: accessTokens.lastUsedAt,
  username: users.username,
  createdAt: users.createdAt,
  totpEnabled: users.totpEnabled,
  /** A connector's current access token ends here (1 h), well before its grant (the row's `expires_at`). */
  accessExpiresAt: oauthGrants.accessExpiresAt,
});

const statements = preparedPerDatabase((db) => ({
  lookup: db
    .select({ row: tokenRow.column })
    .from(accessTokens)
    .innerJoin(users, eq(users.id, accessTokens.userId))
    .leftJoin(oauthGrants, eq(oauthGrants.tokenId, accessTokens.id))
    .where(eq(accessTokens.tokenHash, sql.placeholder("hash")))
    .prepare(),
  // Conditional, so processes that see the same stale value write it once between them.
  touch: db
    .update(accessTokens)
    .set({ lastUsedAt: sql`${sql.placeholder("now")}` })
    .where(
      and(
        eq(accessTokens.id, sql.placeholder("id")),
        or(isNull(accessTokens.lastUsedAt), lte(accessTokens.lastUsedAt, sql.placeholder("staleBefore"))),
      ),
    )
    .prepare(),
}));

/**
 * The user and scopes behind an access token, read on every request (no cache: a revoked token
 * stops working at once in every process); null when it is unknown, revoked or expired.
 */
export async function validateAccessToken(db: Database, token: string, now = Date.now()): Promise<Authenticated | null> {
  const { lookup, touch } = statements(db);
  const found = await readStatements(db).row(lookup, { hash: accessTokenHash(token) });
  if (!found) return null;
  const row = tokenRow.unpack(found[0] as string);
  if (row.expiresAt !== null && now >= row.expiresAt) return null;
  if (row.accessExpiresAt !== null && now >= row.accessExpiresAt) return null;
  if (row.lastUsedAt === null || now - row.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
    // Best effort: a busy database must not turn a valid request away for a bookkeeping write.
    await touch.run({ id: row.id, now, staleBefore: now - LAST_USED_RESOLUTION_MS }).catch((error: unknown) => log.debug("last_used_at not written", error));
  }
  return {
    user: { id: row.userId, username: row.username, createdAt: row.createdAt, totpEnabled: row.totpEnabled },
    credential: { kind: "access_token", tokenId: row.id, scopes: JSON.parse(row.scopes) as Scope[], grant: row.kind, name: row.clientName ?? row.name },
  };
}
