// Credentials for calling business functions directly, as the tRPC middleware would pass them.
import type { Credential } from "../../src/modules/tokens/credential";
import type { Scope } from "../../src/modules/tokens/scopes";

/** A person's login session: every scope. */
export function sessionCredential(userId: number): Credential {
  return { kind: "session", session: { id: `test-session-${userId}`, userId, expiresAt: Number.MAX_SAFE_INTEGER, pendingTotp: false, failedTotpAttempts: 0 } };
}

/** A personal access token's credential (the row `tokenId` must exist for what checks it). */
export function tokenCredential(tokenId: number, scopes: Scope[]): Credential {
  return { kind: "access_token", tokenId, scopes, grant: "personal", name: `token ${tokenId}` };
}
