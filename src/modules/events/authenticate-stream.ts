import type { Database } from "../../db/client";
import { authenticateBearer } from "../auth/authenticate";
import { UnauthenticatedError } from "../errors";
import { redeemEventTicket } from "./tickets";

/** Query parameters that would carry an access token; refused so a token never sits in a URL or a log. */
const TOKEN_PARAMETERS = ["token", "access_token"];

/**
 * Who opens GET /api/events: the holder of `?ticket=` (from POST /api/auth/ticket, used up here),
 * or else the bearer of the Authorization header. Returns the user id.
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
}): Promise<number> {
  if (TOKEN_PARAMETERS.some((name) => query.has(name))) {
    throw new UnauthenticatedError(
      "An access token is never accepted in a URL: send `Authorization: Bearer <token>`, or pass `?ticket=` from POST /api/auth/ticket",
    );
  }
  const ticket = query.get("ticket");
  if (ticket !== null) {
    const userId = ticket === "" ? null : await redeemEventTicket(db, ticket, now);
    if (userId === null) throw new UnauthenticatedError("Invalid, used or expired ticket: get a new one from POST /api/auth/ticket (each works once, for 60 s)");
    return userId;
  }
  return (await authenticateBearer(db, authorization)).user.id;
}
