import type { Authenticated } from "../../modules/tokens/credential";
import type { TrpcContext } from "../../trpc/context";

/** Whom a task request acts for: the procedures' context with the token /mcp's edge accepted (the MCP server's caller). */
export type TaskCaller = TrpcContext & { authenticated: Authenticated };
