import type { AnyRouter } from "@trpc/server";
import {
  createMcpHandler,
  isLegacyRequest,
  PROTOCOL_VERSION_META_KEY,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
} from "@modelcontextprotocol/server";
import { log } from "../log";
import { appsExtension } from "./apps/apps-extension";
import { authInfoFor, type Caller } from "./caller";
import type { McpExtension } from "./extension";
import { mcpServerFactory } from "./mcp-server";
import { refuseUndeclaredTaskListen } from "./tasks/task-listen";
import { tasksExtension } from "./tasks/tasks-extension";
import { toolCatalogue } from "./tool-catalogue";
import { buildTools } from "./tools";

/** Answers one MCP request whose edge checks (origin, token, body) have passed. */
export type McpAnswerer = (request: Request, body: unknown, caller: Caller, token: string) => Promise<Response>;

/**
 * The SDK side of /mcp, made once per process: the tools built from the procedures, the
 * extensions, and the SDK's handlers for both eras on one URL. A 2026-07-28 request (it carries
 * the `_meta` envelope, or names that revision in its header) goes to the SDK's modern handler,
 * which checks its headers against its body and answers it alone. Anything else is a 2025
 * client's (`initialize`, then stateless requests), answered by the SDK's Streamable HTTP
 * transport — built per request, as the SDK's own stateless idiom does, but answering in JSON,
 * where the SDK's ready-made fallback would open an event stream. The caller rides each request
 * as its `authInfo`.
 */
export function createMcpAnswerer(router: AnyRouter, publicUrl: () => string): McpAnswerer {
  const tools = buildTools(router, toolCatalogue((id) => `${publicUrl()}/graph#note=${id}`));
  // The extensions served beside the tools: the Tasks extension (src/mcp/tasks/) and MCP Apps (src/mcp/apps/) are listed here.
  const extensions: McpExtension[] = [tasksExtension, appsExtension];
  const newServer = mcpServerFactory({ router, tools, extensions });
  // What the SDK reports is mostly a client's mistake it has already answered (a header that contradicts the body): kept for debugging.
  const modern = createMcpHandler(newServer, { legacy: "reject", onerror: (error) => log.debug(`MCP: ${error.message}`) });

  async function answerLegacy(request: Request, body: unknown, authInfo: AuthInfo): Promise<Response> {
    const server = newServer();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody: body, authInfo });
    } finally {
      await server.close();
    }
  }

  return async (request, body, caller, token) => {
    const authInfo = authInfoFor(caller, token);
    const legacy = !claimsModernRevision(body) && (await isLegacyRequest(request, body));
    const response = legacy
      ? await answerLegacy(request, body, authInfo)
      : (refuseUndeclaredTaskListen(request, body) ?? (await modern.fetch(request, { parsedBody: body, authInfo })));
    response.headers.set("x-content-type-options", "nosniff");
    return response;
  };
}

/**
 * A request whose `_meta` carries the revision claim (`io.modelcontextprotocol/protocolVersion`):
 * the SDK routes every such request to its modern path, valid or not (isLegacyRequest's own
 * contract), save an `initialize`, which it judges further. Naming them here spares a 2026-07-28
 * request the predicate's classification of its body, a third of the SDK's own cost on a read:
 * the modern handler classifies it anyway.
 */
function claimsModernRevision(body: unknown): boolean {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return false;
  const { method, params } = body as { method?: unknown; params?: { _meta?: unknown } };
  const meta = params?._meta;
  return method !== "initialize" && meta !== null && typeof meta === "object" && !Array.isArray(meta) && PROTOCOL_VERSION_META_KEY in meta;
}
