import { TRPCError } from "@trpc/server";
import { sqliteErrorCode } from "../db/errors";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import {
  ConflictError,
  ForbiddenError,
  InvalidInputError,
  MissingScopeError,
  NotFoundError,
  ServiceError,
  TooLargeError,
  TooManyRequestsError,
  UnauthenticatedError,
  UnavailableError,
  UnsupportedMediaTypeError,
} from "../modules/errors";

const CODES: [new (...args: never[]) => ServiceError, TRPC_ERROR_CODE_KEY][] = [
  [NotFoundError, "NOT_FOUND"],
  [ConflictError, "CONFLICT"],
  [InvalidInputError, "BAD_REQUEST"],
  [UnauthenticatedError, "UNAUTHORIZED"],
  [ForbiddenError, "FORBIDDEN"],
  [TooManyRequestsError, "TOO_MANY_REQUESTS"],
  [UnavailableError, "SERVICE_UNAVAILABLE"],
  [UnsupportedMediaTypeError, "UNSUPPORTED_MEDIA_TYPE"],
  [TooLargeError, "PAYLOAD_TOO_LARGE"],
];

/**
 * The one place business errors (and a database that stayed busy) become transport errors; the
 * original stays as `cause`. Undefined for anything else: an unexpected error.
 */
export function toTrpcError(error: unknown): TRPCError | undefined {
  if (isDatabaseBusy(error)) {
    return new TRPCError({ code: "SERVICE_UNAVAILABLE", message: "The database is busy; retry shortly", cause: error });
  }
  if (!(error instanceof ServiceError)) return undefined;
  const code = CODES.find(([type]) => error instanceof type)?.[1] ?? "INTERNAL_SERVER_ERROR";
  return new TRPCError({ code, message: error.message, cause: error });
}

/** SQLite lock contention that outlasted the busy timeout: the client may retry, so 503. */
export function isDatabaseBusy(error: unknown): boolean {
  const code = sqliteErrorCode(error);
  return code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED");
}

/** Headers an error needs: a challenge on 401 and on a missing scope (RFC 6750), a wait on 429 and on 503 (a backing service down, a busy database). */
export function errorHeaders(error: TRPCError): Record<string, string> {
  if (error.code === "SERVICE_UNAVAILABLE") return { "Retry-After": "5" };
  if (error.code === "UNAUTHORIZED") return { "WWW-Authenticate": 'Bearer realm="rhizome"' };
  if (error.cause instanceof MissingScopeError) {
    return { "WWW-Authenticate": `Bearer realm="rhizome", error="insufficient_scope", scope="${error.cause.scope}"` };
  }
  if (error.code === "TOO_MANY_REQUESTS" && error.cause instanceof TooManyRequestsError) {
    return { "Retry-After": String(error.cause.retryAfterSeconds) };
  }
  return {};
}
