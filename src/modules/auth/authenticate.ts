import type { Database } from "../../db/client";
import { ForbiddenError, UnauthenticatedError } from "../errors";
import { authorize, type Authenticated } from "../tokens/credential";
import type { Access } from "../tokens/scopes";
import { isAccessToken } from "../tokens/token-secret";
import { validateAccessToken } from "../tokens/validate-token";
import { validateSessionToken } from "./sessions";

export function bearerToken(authorization: string | null): string {
  const match = authorization?.match(/^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i);
  if (!match) throw new UnauthenticatedError(authorization ? "The Authorization header must be `Bearer <token>`" : "Missing bearer token");
  return match[1]!;
}

export const CONNECTOR_TOKEN_ELSEWHERE = "This token was granted to a connector through OAuth: it works only on the MCP endpoint, /mcp";
export const CLIPPER_TOKEN_ELSEWHERE = "This token was granted to the browser extension through OAuth: it works only on the REST API, /api";

/**
 * The user and credential behind an `Authorization: Bearer` header: a login session or an access
 * token (`rhz_…`). `full` takes a finished login or a token; `pending` only the pending token of
 * a TOTP login (for its verify step). An OAuth grant counts only on the resource it was granted
 * for — a connector's at /mcp (`at: "mcp"`), a clipper's on the API (`at: "api"`, the default: REST,
 * tRPC and the plain /api routes) — and is a 401 elsewhere. What the credential may do is `authorize`'s question.
 */
export async function authenticateBearer(
  db: Database,
  authorization: string | null,
  accept: "full" | "pending" = "full",
  options: { at?: "api" | "mcp" } = {},
): Promise<Authenticated> {
  const token = bearerToken(authorization);
  if (isAccessToken(token)) {
    const validated = await validateAccessToken(db, token);
    if (!validated) throw new UnauthenticatedError("Invalid, expired or revoked access token");
    const at = options.at ?? "api";
    const grant = validated.credential.kind === "access_token" ? validated.credential.grant : "personal";
    if (grant === "connector" && at !== "mcp") throw new UnauthenticatedError(CONNECTOR_TOKEN_ELSEWHERE);
    if (grant === "clipper" && at !== "api") throw new UnauthenticatedError(CLIPPER_TOKEN_ELSEWHERE);
    // A valid token, refused like every operation reserved for a person at a login.
    if (accept === "pending") throw new ForbiddenError("This endpoint takes the pending token of a TOTP login, not an access token");
    return validated;
  }
  const validated = await validateSessionToken(db, token);
  if (!validated) throw new UnauthenticatedError("Invalid or expired token");
  if (validated.session.pendingTotp !== (accept === "pending")) {
    throw new UnauthenticatedError(
      accept === "full"
        ? "This token is waiting for its second factor: send the code to /api/auth/totp/verify"
        : "This endpoint takes the pending token of a TOTP login",
    );
  }
  return { user: validated.user, credential: { kind: "session", session: validated.session } };
}

/** For plain routes (uploads, downloads, streams): the caller, once its credential is allowed `access`. */
export async function authenticateFor(db: Database, authorization: string | null, access: Access): Promise<Authenticated> {
  const authenticated = await authenticateBearer(db, authorization);
  authorize(authenticated.credential, access);
  return authenticated;
}
