import type { Database } from "../../db/client";
import { authenticateBearer, bearerToken } from "../auth/authenticate";
import { UnauthenticatedError } from "../errors";
import { streamCredential, type StreamCredential } from "./stream-credential";
import { redeemEventTicket } from "./tickets";

/** Query parameters that would carry an access token; refused so a token never sits in a URL or a log. */
const TOKEN_PARAMETERS = ["token", "access_token"];

/**
 * Who opens GET /api/events: the holder of `?ticket=` (from POST /api/auth/ticket, used up here),
 * or else the bearer of the Authorization header. Returns the user id and the credential the stream
 * lives by: the bearer's session or token, or the session that issued the ticket.
 */
export async function authenticateEventStream({
  db,
  authorization,
  query,
  now = Date.now(),
}: {
  db: Database;
  authorization: string | null;
  query: URLSearchParams;
  now?: number;
}): Promise<{ userId: number; credential: StreamCredential }> {
  if (TOKEN_PARAMETERS.some((name) => query.has(name))) {
    throw new UnauthenticatedError(
      "An access token is never accepted in a URL: send `Authorization: Bearer <token>`, or pass `?ticket=` from POST /api/auth/ticket",
    );
  }
  const ticket = query.get("ticket");
  if (ticket !== null) {
    const redeemed = ticket === "" ? null : await redeemEventTicket(db, ticket, now);
    if (redeemed === null) throw new UnauthenticatedError("Invalid, used or expired ticket: get a new one from POST /api/auth/ticket (each works once, for 60 s)");
    return { userId: redeemed.userId, credential: { kind: "session", sessionId: redeemed.sessionId } };
  }
  const { user, credential } = await authenticateBearer(db, authorization);
  return { userId: user.id, credential: streamCredential(credential, bearerToken(authorization)) };
}
