import { TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import type { ErrorBody } from "../trpc/call-procedure";
import { GENERIC_500 } from "../trpc/init";
import { errorHeaders, toTrpcError } from "../trpc/errors";
import { log } from "../log";

export type { ErrorBody };

export function jsonError(status: number, body: ErrorBody, headers: Record<string, string> = {}): Response {
  // A message may quote the request (a path, a name): never to be read as anything but JSON.
  return Response.json(body, { status, headers: { "X-Content-Type-Options": "nosniff", ...headers } });
}

/** An error raised at the HTTP edge (before or outside a procedure). */
export function edgeError(code: TRPC_ERROR_CODE_KEY, message: string, headers: Record<string, string> = {}): Response {
  const error = new TRPCError({ code, message });
  return jsonError(getHTTPStatusCodeFromError(error), { code, message: code === "INTERNAL_SERVER_ERROR" ? GENERIC_500 : message }, headers);
}

/** A business error thrown by a plain route (outside a procedure), mapped as a procedure's would be. */
export function serviceErrorResponse(error: unknown, where: string): Response {
  const mapped = toTrpcError(error);
  if (!mapped) {
    log.error(`unexpected error in ${where}`, error);
    return edgeError("INTERNAL_SERVER_ERROR", GENERIC_500);
  }
  return jsonError(getHTTPStatusCodeFromError(mapped), { code: mapped.code, message: mapped.message }, errorHeaders(mapped));
}

/** For a TRPCError and the body our error formatter made of it. */
export function trpcErrorResponse(error: TRPCError, body: ErrorBody): Response {
  return jsonError(getHTTPStatusCodeFromError(error), body, errorHeaders(error));
}

export class PayloadTooLargeError extends Error {
  /** `what` names the part over the limit when it is not the whole body (one call of a tRPC batch). */
  constructor(
    readonly limitBytes: number,
    what = "Request body",
  ) {
    super(`${what} is larger than the ${formatBytes(limitBytes)} limit`);
  }
}

export function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : `${bytes} bytes`;
}
