import type { Session, SessionUser } from "../auth/sessions";
import { ForbiddenError, MissingScopeError } from "../errors";
import type { Access, Scope } from "./scopes";

/** What a bearer token turned out to be: a person's login session, or a program's access token. */
export type Credential =
  | { kind: "session"; session: Session }
  | { kind: "access_token"; tokenId: number; scopes: readonly Scope[]; grant: TokenKind; name: string };

/** `personal` (made by the user), `connector` (an OAuth grant for /mcp), `clipper` (an OAuth grant for the REST API). */
export type TokenKind = "personal" | "connector" | "clipper";

export interface Authenticated {
  user: SessionUser;
  credential: Credential;
}

/**
 * The one scope check: tRPC procedures (and so REST and MCP), the event stream and the plain
 * upload/download routes all call it with the access their operation declares.
 */
export function authorize(credential: Credential, access: Access): void {
  if (allows(credential, access)) return;
  if (access === "session") {
    throw new ForbiddenError("This operation needs a login session; access tokens cannot manage credentials or the second factor");
  }
  throw new MissingScopeError(access);
}

/** Whether `authorize` would let this credential through (MCP lists only the tools a token may call). */
export function allows(credential: Credential, access: Access): boolean {
  if (credential.kind === "session" || access === "any") return true;
  return access !== "session" && credential.scopes.includes(access);
}
