import type { CallToolResult, JSONObject, ReadResourceResult, Resource, Result, Server, ServerContext } from "@modelcontextprotocol/server";
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
 * is optional; the server is built once per request from the same list, so a hook keeps no
 * state of its own between requests (what it remembers lives in the database).
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
  /** Adds its own request handlers (Tasks: `tasks/get`, `tasks/cancel`) to a server being built. */
  install?: (server: Server) => void;
  /** Resources it serves beside the notes (Apps: `ui://rhizome/note`); `read` answers undefined for a URI not its own. */
  resources?: {
    list?: (caller: Caller) => Resource[] | Promise<Resource[]>;
    read: (uri: string, caller: Caller) => ReadResourceResult | undefined | Promise<ReadResourceResult | undefined>;
  };
}
