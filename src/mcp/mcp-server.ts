import type { AnyRouter } from "@trpc/server";
import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
  type CallToolResult,
  type ServerCapabilities,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
import { allows } from "../modules/tokens/credential";
import { callerOf, type Caller } from "./caller";
import type { McpExtension, ToolCall } from "./extension";
import { listNoteResources, noteTemplates, readNoteResource } from "./resources";
import { callTool, type McpTool } from "./tools";

const SERVER_INFO = { name: "rhizome", title: "Rhizome", version: "1.0.0" };
const INSTRUCTIONS =
  "Rhizome holds this user's notes (Markdown with tags), imports from WeChat, Xiaohongshu, Bilibili, Douyin and web pages, and a knowledge graph of the concepts in them. " +
  "Find notes with search_notes (full-text, Chinese too) or list_notes, read one with get_note, and answer questions from them with ask (it cites passages). " +
  "Each tool is one operation of the service's REST API and needs the scope its token was given.";

export interface McpServerParts {
  router: AnyRouter;
  tools: Map<string, McpTool>;
  extensions: McpExtension[];
}

/**
 * The SDK's server factory for /mcp. The SDK asks for a server per HTTP request and refuses one
 * still serving another, so what costs anything — the tools and their JSON Schemas, the
 * capabilities, the handlers — is made here once per process, and a request's server is a
 * `Server` with those handlers attached. The handlers take the caller from the request's
 * context (`authInfo`), never from the server.
 */
export function mcpServerFactory(parts: McpServerParts): () => Server {
  const capabilities = serverCapabilities(parts.extensions);
  // Elicitation is the validator's only use, and nothing here elicits: one instance for every server, none built per request.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  const handlers = requestHandlers(parts);
  return () => {
    const server = new Server(SERVER_INFO, { capabilities, instructions: INSTRUCTIONS, jsonSchemaValidator });
    server.setRequestHandler("tools/list", handlers.listTools);
    server.setRequestHandler("tools/call", handlers.callTool);
    server.setRequestHandler("resources/templates/list", handlers.listResourceTemplates);
    server.setRequestHandler("resources/list", handlers.listResources);
    server.setRequestHandler("resources/read", handlers.readResource);
    for (const extension of parts.extensions) extension.install?.(server);
    return server;
  };
}

function serverCapabilities(extensions: McpExtension[]): ServerCapabilities {
  const capabilities: ServerCapabilities = { tools: { listChanged: false }, resources: { listChanged: false } };
  if (extensions.length > 0) capabilities.extensions = Object.fromEntries(extensions.map((extension) => [extension.id, extension.settings ?? {}]));
  return capabilities;
}

type CallToolRequest = { params: { name: string; arguments?: Record<string, unknown> } };
type ReadResourceRequest = { params: { uri: string } };

/** The handlers every request's server shares: the tools and resources the caller's token allows, as its user. */
function requestHandlers({ router, tools, extensions }: McpServerParts) {
  const interceptors = extensions.flatMap((extension) => (extension.callTool ? [extension.callTool] : []));
  const resourceProviders = extensions.flatMap((extension) => (extension.resources ? [extension.resources] : []));
  return {
    listTools: (_request: unknown, ctx: ServerContext) => {
      const { credential } = callerOf(ctx).authenticated;
      return { tools: [...tools.values()].filter((tool) => allows(credential, tool.access)).map((tool) => tool.definition) };
    },
    callTool: (request: CallToolRequest, ctx: ServerContext) => {
      const tool = tools.get(request.params.name);
      if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      const call: ToolCall = { tool, arguments: request.params.arguments, caller: callerOf(ctx), ctx };
      const run = () => callTool(router, tool, call.caller, call.arguments);
      // Each extension may answer in the tool's place, the first listed outermost; the innermost `run` is the tool itself.
      const chain = interceptors.reduceRight<() => Promise<CallToolResult>>((next, intercept) => () => intercept(call, next) as Promise<CallToolResult>, run);
      return chain();
    },
    listResourceTemplates: () => noteTemplates,
    listResources: async (_request: unknown, ctx: ServerContext) => {
      const caller = callerOf(ctx);
      const notes = await listNoteResources(router, caller);
      const others = await Promise.all(resourceProviders.map((provider) => provider.list?.(caller) ?? []));
      return { resources: [...others.flat(), ...notes.resources] };
    },
    readResource: async (request: ReadResourceRequest, ctx: ServerContext) => {
      const { uri } = request.params;
      const caller: Caller = callerOf(ctx);
      for (const provider of resourceProviders) {
        const read = await provider.read(uri, caller);
        if (read) return read;
      }
      const note = await readNoteResource(router, caller, uri);
      if (note) return note;
      throw new ResourceNotFoundError(uri, `Resource not found: ${uri} (notes are rhizome://notes/{id})`);
    },
  };
}
