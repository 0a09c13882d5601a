import type { AnyRouter } from "@trpc/server";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { TrpcContext } from "../trpc/context";
import type { Authenticated } from "../modules/tokens/credential";
import { allows } from "../modules/tokens/credential";
import { readAppResource } from "./apps/ui-resources";
import { listNoteResources, noteTemplates, readNoteResource } from "./resources";
import { callTool, type McpTool } from "./tools";

const SERVER_INFO = { name: "rhizome", title: "Rhizome", version: "1.0.0" };
const INSTRUCTIONS =
  "Rhizome holds this user's notes (Markdown with tags), imports from WeChat, Xiaohongshu, Bilibili, Douyin and web pages, and a knowledge graph of the concepts in them. " +
  "Find notes with search_notes (full-text, Chinese too) or list_notes, read one with get_note, and answer questions from them with ask (it cites passages). " +
  "Each tool is one operation of the service's REST API and needs the scope its token was given.";
// The server never validates JSON Schema itself (no elicitation); one validator serves every request rather than one built per request.
const validator = new AjvJsonSchemaValidator();

/**
 * One MCP server for one request (the transport is stateless): the tools and resources this
 * token's scopes allow, called as its user through the same procedures as REST.
 */
export function createMcpServer({ router, tools, ctx }: { router: AnyRouter; tools: Map<string, McpTool>; ctx: TrpcContext & { authenticated: Authenticated } }): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: validator,
  });
  const { credential } = ctx.authenticated;
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...tools.values()].filter((tool) => allows(credential, tool.access)).map((tool) => tool.definition),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const tool = tools.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return callTool(router, tool, ctx, request.params.arguments);
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => noteTemplates);
  server.setRequestHandler(ListResourcesRequestSchema, () => listNoteResources(router, ctx));
  // The MCP Apps' ui:// documents are read by any token (they hold no data); they are not listed:
  // hosts find them in the tools' _meta, and resources/list stays the user's notes.
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => (await readAppResource(request.params.uri)) ?? readNoteResource(router, ctx, request.params.uri));
  return server;
}
