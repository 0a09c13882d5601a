import type { AuthInfo, ServerContext } from "@modelcontextprotocol/server";
import type { Authenticated } from "../modules/tokens/credential";
import type { TrpcContext } from "../trpc/context";

/** Whom an MCP request acts for: the procedures' context, with the token the edge accepted. */
export type Caller = TrpcContext & { authenticated: Authenticated };

/**
 * The caller as the SDK carries it to the handlers (`ctx.http.authInfo`): the server is built
 * without knowing any user, so the token's user travels with each request instead.
 */
export function authInfoFor(caller: Caller, token: string): AuthInfo {
  const { credential } = caller.authenticated;
  return {
    token,
    clientId: credential.kind === "access_token" ? `${credential.grant}:${credential.tokenId}` : "session",
    scopes: credential.kind === "access_token" ? [...credential.scopes] : [],
    extra: { caller },
  };
}

/** The caller of the request a handler is answering; every request reaches the SDK through the edge, which sets it. */
export function callerOf(ctx: ServerContext): Caller {
  const caller = ctx.http?.authInfo?.extra?.caller as Caller | undefined;
  if (!caller) throw new Error("MCP request without a caller: /mcp's edge sets one on every request");
  return caller;
}
