import { and, eq, gt, inArray, isNull, or } from "drizzle-orm";
import type { Database } from "../../db/client";
import { accessTokens, oauthGrants, sessions } from "../../db/schema";
import type { Credential } from "../tokens/credential";
import { accessTokenHash } from "../tokens/token-secret";

/** What opened a stream, by the hash the database keeps of it: the stream lives only as long as it does. */
export type StreamCredential = { kind: "session"; sessionId: string } | { kind: "access_token"; tokenHash: string };

/** Bounds each `in (…)` list well under SQLite's variable limit. */
const CHUNK = 500;

/** The stream credential of a bearer `token` that authenticated as `credential`. */
export function streamCredential(credential: Credential, token: string): StreamCredential {
  return credential.kind === "session" ? { kind: "session", sessionId: credential.session.id } : { kind: "access_token", tokenHash: accessTokenHash(token) };
}

export function credentialKey(credential: StreamCredential): string {
  return credential.kind === "session" ? `session:${credential.sessionId}` : `token:${credential.tokenHash}`;
}

/**
 * The keys (`credentialKey`) of those credentials that still stand: a finished login not logged
 * out or expired, an access token not revoked or expired. Indexed reads by primary or unique key,
 * one per 500 credentials of each kind, whatever the number of streams they opened.
 */
export async function liveCredentials(db: Database, credentials: Iterable<StreamCredential>, now = Date.now()): Promise<Set<string>> {
  const sessionIds = new Set<string>();
  const tokenHashes = new Set<string>();
  for (const credential of credentials) {
    if (credential.kind === "session") sessionIds.add(credential.sessionId);
    else tokenHashes.add(credential.tokenHash);
  }
  const live = new Set<string>();
  for (const ids of chunks([...sessionIds])) {
    const rows = await db
      .select({ id: sessions.id })
      .from(sessions)
      .where(and(inArray(sessions.id, ids), gt(sessions.expiresAt, now), eq(sessions.pendingTotp, false)));
    for (const row of rows) live.add(credentialKey({ kind: "session", sessionId: row.id }));
  }
  for (const hashes of chunks([...tokenHashes])) {
    const rows = await db
      .select({ tokenHash: accessTokens.tokenHash })
      .from(accessTokens)
      .leftJoin(oauthGrants, eq(oauthGrants.tokenId, accessTokens.id))
      .where(
        and(
          inArray(accessTokens.tokenHash, hashes),
          or(isNull(accessTokens.expiresAt), gt(accessTokens.expiresAt, now)),
          or(isNull(oauthGrants.accessExpiresAt), gt(oauthGrants.accessExpiresAt, now)),
        ),
      );
    for (const row of rows) live.add(credentialKey({ kind: "access_token", tokenHash: row.tokenHash }));
  }
  return live;
}

function chunks<T>(items: T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += CHUNK) result.push(items.slice(start, start + CHUNK));
  return result;
}
