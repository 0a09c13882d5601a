import { describe, expect, test } from "bun:test";
import { TRPCError } from "@trpc/server";
import { DrizzleQueryError } from "drizzle-orm";
import Libsql from "libsql";
import {
  ConflictError,
  InvalidInputError,
  NotFoundError,
  QueueUnavailableError,
  ServiceError,
  TooLargeError,
  TooManyRequestsError,
  UnauthenticatedError,
  UnavailableError,
  UnsupportedMediaTypeError,
} from "../../src/modules/errors";
import { errorHeaders, isDatabaseBusy, toTrpcError } from "../../src/trpc/errors";

/** The error libSQL really throws for a constraint, from a statement on an in-memory database. */
function constraintError(): unknown {
  const db = new Libsql(":memory:");
  db.exec("create table t (x unique); insert into t values (1)");
  try {
    db.prepare("insert into t values (1)").run();
  } catch (error) {
    return error;
  } finally {
    db.close();
  }
  throw new Error("the insert did not fail");
}

describe("toTrpcError, the one place business errors become transport errors", () => {
  test.each([
    [new NotFoundError("Note 3"), "NOT_FOUND"],
    [new ConflictError("already enabled"), "CONFLICT"],
    [new InvalidInputError("wrong code"), "BAD_REQUEST"],
    [new UnauthenticatedError("no token"), "UNAUTHORIZED"],
    [new TooManyRequestsError("slow down", 30), "TOO_MANY_REQUESTS"],
    [new UnavailableError("down"), "SERVICE_UNAVAILABLE"],
    [new QueueUnavailableError(), "SERVICE_UNAVAILABLE"],
    [new UnsupportedMediaTypeError("not an image"), "UNSUPPORTED_MEDIA_TYPE"],
    [new TooLargeError("over 10 MiB"), "PAYLOAD_TOO_LARGE"],
    [new ServiceError("some other business error"), "INTERNAL_SERVER_ERROR"],
  ] as const)("%s is %s, with its message and the original as cause", (error, code) => {
    const mapped = toTrpcError(error)!;
    expect(mapped).toBeInstanceOf(TRPCError);
    expect(mapped.code).toBe(code);
    expect(mapped.message).toBe(error.message);
    expect(mapped.cause).toBe(error);
  });

  test("a database that stayed busy, however deep drizzle wraps it, is a 503 that does not show the SQL", () => {
    const busy = Object.assign(new Error("SQLITE_BUSY: database is locked"), { code: "SQLITE_BUSY" });
    const wrapped = new DrizzleQueryError("update notes set title = ? where id = ?", [1, 2], busy as Error);
    for (const error of [busy, wrapped, Object.assign(new Error("locked"), { code: "SQLITE_LOCKED_SHAREDCACHE" })]) {
      expect(isDatabaseBusy(error)).toBe(true);
      const mapped = toTrpcError(error)!;
      expect(mapped.code).toBe("SERVICE_UNAVAILABLE");
      expect(mapped.message).toBe("The database is busy; retry shortly");
    }
  });

  test("anything else is not mapped (an unexpected error: a generic 500 elsewhere), a constraint failure included", () => {
    const constraint = constraintError();
    expect(isDatabaseBusy(constraint)).toBe(false);
    expect(toTrpcError(constraint)).toBeUndefined();
    expect(toTrpcError(new Error("boom"))).toBeUndefined();
    expect(toTrpcError("a string")).toBeUndefined();
  });
});

describe("errorHeaders", () => {
  test("a 503 asks to retry after 5 s, a 401 challenges for a Bearer token, a 429 says when", () => {
    expect(errorHeaders(toTrpcError(new QueueUnavailableError())!)).toEqual({ "Retry-After": "5" });
    expect(errorHeaders(toTrpcError(new UnauthenticatedError("no token"))!)).toEqual({ "WWW-Authenticate": 'Bearer realm="rhizome"' });
    expect(errorHeaders(toTrpcError(new TooManyRequestsError("slow down", 42))!)).toEqual({ "Retry-After": "42" });
  });

  test("other errors carry none", () => {
    expect(errorHeaders(toTrpcError(new NotFoundError("Note 3"))!)).toEqual({});
    expect(errorHeaders(new TRPCError({ code: "TOO_MANY_REQUESTS", message: "no cause to say when" }))).toEqual({});
  });
});
