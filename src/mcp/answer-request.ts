import type { AnyRouter } from "@trpc/server";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Authenticated } from "../modules/tokens/credential";
import type { TrpcContext } from "../trpc/context";
import { createMcpServer } from "./mcp-server";
import { toolCatalogue } from "./tool-catalogue";
import { buildTools } from "./tools";

/** Answers one MCP request whose edge checks (origin, token, body) have passed. */
export type McpAnswerer = (request: Request, body: unknown, ctx: TrpcContext & { authenticated: Authenticated }) => Promise<Response>;

/** The SDK side of /mcp: one stateless server per request, over tools built once from the procedures. */
export function createMcpAnswerer(router: AnyRouter, publicUrl: () => string): McpAnswerer {
  const tools = buildTools(router, toolCatalogue((id) => `${publicUrl()}/graph#note=${id}`));
  return async (request, body, ctx) => {
    const server = createMcpServer({ router, tools, ctx });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(request, { parsedBody: body });
      response.headers.set("x-content-type-options", "nosniff");
      return response;
    } finally {
      await server.close();
    }
  };
}
