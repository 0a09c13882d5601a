import type { AnyRouter } from "@trpc/server";
import type { Database } from "../db/client";
import { edgeError, PayloadTooLargeError, serviceErrorResponse } from "../http/error-response";
import { DEFAULT_BODY_LIMIT } from "../http/procedure-meta";
import { readBodyText } from "../http/request-body";
import { authenticateBearer } from "../modules/auth/authenticate";
import type { Authenticated } from "../modules/tokens/credential";
import type { TrpcContext } from "../trpc/context";
import type { McpAnswerer } from "./answer-request";

export const MCP_PATH = "/mcp";
/** RFC 9728: the protected resource's metadata, at the well-known prefix before the resource's path. */
export const PROTECTED_RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;

export interface McpRouteOptions {
  router: AnyRouter;
  db: Database;
  contextFor: (request: Request) => TrpcContext;
  /** This service's external URL (PUBLIC_URL, else where it listens): its origin may call, and note links start with it. */
  publicUrl: () => string;
  /** Browser origins allowed besides the service's own (MCP_ALLOWED_ORIGINS). */
  allowedOrigins: string[];
}

/**
 * POST /mcp: the Model Context Protocol over Streamable HTTP, stateless, answered as JSON. The
 * edge checks what the SDK leaves to its host — the Origin (DNS rebinding), the bearer token (an
 * access token, never a login session), the 2 MiB body — then the SDK answers the request, under
 * protocol revision 2026-07-28 or a 2025 one, with the tools the token's scopes allow. GET (a
 * server-sent stream) and DELETE (a session) are 405: a stateless server has neither.
 */
export function createMcpRoute(options: McpRouteOptions) {
  // Loaded on the first call: the SDK and the tools' JSON Schemas cost about 20 MiB of memory that a server which never serves MCP need not hold.
  let answerer: Promise<McpAnswerer> | undefined;
  const allowed = new Set(options.allowedOrigins);
  const challenge = () => `Bearer realm="rhizome", resource_metadata="${options.publicUrl()}${PROTECTED_RESOURCE_METADATA_PATH}"`;
  const ownOrigin = () => (URL.canParse(options.publicUrl()) ? new URL(options.publicUrl()).origin : null);

  return async function handleMcp(request: Request): Promise<Response> {
    if (request.method !== "POST") {
      return edgeError("METHOD_NOT_SUPPORTED", `${request.method} is not allowed on ${MCP_PATH}: this MCP server is stateless and answers POST only`, { Allow: "POST" });
    }
    const origin = request.headers.get("origin");
    if (origin !== null && origin.toLowerCase() !== ownOrigin() && !allowed.has(origin.toLowerCase())) {
      return edgeError("FORBIDDEN", `Requests from the origin ${origin} may not call ${MCP_PATH}; list it in MCP_ALLOWED_ORIGINS to allow it`);
    }
    let authenticated: Authenticated;
    const authorization = request.headers.get("authorization");
    try {
      authenticated = await authenticateBearer(options.db, authorization, "full", { at: "mcp" });
    } catch (error) {
      const response = serviceErrorResponse(error, `POST ${MCP_PATH}`);
      // A connector (claude.ai, ChatGPT) starts from this 401: it names where to find the authorization server.
      if (response.status === 401) response.headers.set("WWW-Authenticate", challenge());
      return response;
    }
    if (authenticated.credential.kind === "session") {
      return edgeError("UNAUTHORIZED", `A login session's token is not accepted at ${MCP_PATH}: create an access token (POST /api/auth/tokens) and use it`, {
        "WWW-Authenticate": challenge(),
      });
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBodyText(request, DEFAULT_BODY_LIMIT));
    } catch (error) {
      if (error instanceof PayloadTooLargeError) return edgeError("PAYLOAD_TOO_LARGE", error.message);
      return Response.json({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error: the body is not JSON" }, id: null }, { status: 400 });
    }
    const caller = { ...options.contextFor(request), authenticated };
    answerer ??= import("./answer-request").then(({ createMcpAnswerer }) => createMcpAnswerer(options.router, options.publicUrl));
    return (await answerer)(request, body, caller, bearerToken(authorization));
  };
}

/** The token itself, for the SDK's `authInfo` (authenticateBearer has already accepted the header). */
function bearerToken(authorization: string | null): string {
  return authorization?.replace(/^Bearer\s+/i, "") ?? "";
}
