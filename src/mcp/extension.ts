import {
  CLIENT_CAPABILITIES_META_KEY,
  type CallToolResult,
  type ClientCapabilities,
  type JSONObject,
  type ReadResourceResult,
  type Resource,
  type Result,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { Caller } from "./caller";
import type { McpTool } from "./tools";

/** One tools/call as an extension sees it, before the tool runs. */
export interface ToolCall {
  tool: McpTool;
  arguments: Record<string, unknown> | undefined;
  caller: Caller;
  /** The SDK's request context: `mcpReq.envelope` carries a 2026-07-28 client's declared capabilities (and extensions). */
  ctx: ServerContext;
}

/**
 * An MCP extension served beside the tools and resources: the Tasks extension (src/mcp/tasks/)
 * and MCP Apps (src/mcp/apps/) plug in through this, listed once in answer-request.ts. Each hook
 * is optional. An extension lives as long as the process, but a client's next request may reach
 * another API process: what it remembers between requests lives in the database.
 */
export interface McpExtension {
  /** Its identifier (`io.modelcontextprotocol/tasks`), advertised in the server's `capabilities.extensions`. */
  id: string;
  /** What the server says of it under that identifier (`{}` when nothing). */
  settings?: JSONObject;
  /**
   * Answers a tools/call in the tool's place when it wants to (Tasks: `import`, `build_graph`
   * and `ask` as a task, for a client that declared the extension); `run` calls the tool as usual.
   */
  callTool?: (call: ToolCall, run: () => Promise<CallToolResult>) => Promise<CallToolResult | Result>;
  /** Adds its own request handlers (Tasks: `tasks/get`, `tasks/cancel`) to each request's server; they find their caller with `callerOf(ctx)`. */
  install?: (server: Server) => void;
  /** Resources it serves beside the notes (Apps: `ui://rhizome/note`); `read` answers undefined for a URI not its own. */
  resources?: {
    list?: (caller: Caller) => Resource[] | Promise<Resource[]>;
    read: (uri: string, caller: Caller) => ReadResourceResult | undefined | Promise<ReadResourceResult | undefined>;
  };
}

/**
 * The capabilities the client declared with this request (its `extensions` among them): a
 * 2026-07-28 request carries them in its `_meta` envelope; a 2025 request, served without its
 * `initialize`, declares none. (The SDK 2.4.0 types the envelope as `{}`, hence the cast.)
 */
export function declaredCapabilities(ctx: ServerContext): ClientCapabilities | undefined {
  return (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
}
