import type { Database } from "../../db/client";
import { UnauthenticatedError } from "../errors";
import { validateSessionToken, type Session, type SessionUser } from "./sessions";

function bearerToken(authorization: string | null): string {
  const match = authorization?.match(/^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i);
  if (!match) throw new UnauthenticatedError(authorization ? "The Authorization header must be `Bearer <token>`" : "Missing bearer token");
  return match[1]!;
}

/**
 * The session and user behind an `Authorization: Bearer` header. `full` takes a finished login;
 * `pending` only the pending token of a TOTP login (for its verify step).
 */
export async function authenticateBearer(
  db: Database,
  authorization: string | null,
  accept: "full" | "pending" = "full",
): Promise<{ session: Session; user: SessionUser }> {
  const validated = await validateSessionToken(db, bearerToken(authorization));
  if (!validated) throw new UnauthenticatedError("Invalid or expired token");
  if (validated.session.pendingTotp !== (accept === "pending")) {
    throw new UnauthenticatedError(
      accept === "full"
        ? "This token is waiting for its second factor: send the code to /api/auth/totp/verify"
        : "This endpoint takes the pending token of a TOTP login",
    );
  }
  return validated;
}
