import { TRPCError, type AnyProcedure, type AnyRouter } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { getErrorShape } from "@trpc/server/unstable-core-do-not-import";
import type { TrpcContext } from "./context";
import { logUnexpected, type ErrorIssue } from "./init";

/** The contract's one error body. */
export interface ErrorBody {
  code: TRPC_ERROR_CODE_KEY;
  message: string;
  issues?: ErrorIssue[];
}

export function procedureAt(router: AnyRouter, path: string): AnyProcedure | undefined {
  return (router._def.procedures as Record<string, AnyProcedure>)[path];
}

/**
 * Runs one procedure with this input, as tRPC's own transport does (its middlewares, so its
 * authentication, scope check and error mapping, then its input and output parsers). The REST
 * edge and the MCP tools both call procedures through here.
 */
export function callProcedure(router: AnyRouter, path: string, ctx: TrpcContext, input: unknown): Promise<unknown> {
  const procedure = procedureAt(router, path);
  if (!procedure) throw new Error(`no procedure ${path}`);
  return procedure({ ctx, path, type: procedure._def.type, getRawInput: async () => input, signal: undefined, batchIndex: 0 });
}

/** What a failed call answers: the TRPCError (for its status and headers) and the body our error formatter makes of it. */
export function errorOfCall(router: AnyRouter, cause: unknown, call: { path: string; ctx: TrpcContext; input: unknown }): { error: TRPCError; body: ErrorBody } {
  const error = cause instanceof Error && cause.name === "TRPCError" ? (cause as TRPCError) : new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause });
  logUnexpected(error, call.path);
  const type = procedureAt(router, call.path)?._def.type ?? "mutation";
  const shape = getErrorShape({ config: router._def._config, error, type, path: call.path, input: call.input, ctx: call.ctx }) as {
    message: string;
    data?: { issues?: ErrorIssue[] };
  };
  const body: ErrorBody = { code: error.code, message: shape.message };
  if (shape.data?.issues) body.issues = shape.data.issues;
  return { error, body };
}
