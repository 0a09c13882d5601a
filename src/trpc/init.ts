import { initTRPC, TRPCError } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import type { ZodError } from "zod";
import type { TrpcContext } from "./context";
import { log } from "../log";
import type { Access } from "../modules/tokens/scopes";

export interface Meta extends OpenApiMeta {
  /** What the caller's credential needs (a scope, any credential, or a login session); a protected procedure without it takes sessions only. */
  access?: Access;
  /** The HTTP status of a success when it is not 200 (201 created, 202 accepted, 204 no content). */
  successStatus?: 201 | 202 | 204;
  /** Documents a 200 beside `successStatus`, with this description (a build's dry run answers 200). */
  alsoOk?: string;
  /** Answered by the REST edge as a binary download (documented with this media type). */
  download?: string;
  /** The download's file name as its Content-Disposition gives it (for the document). */
  downloadFilename?: string;
  /** The request body limit, on /api and /trpc alike; 2 MiB when unset. */
  maxBodyBytes?: number;
  /** On /api, a body of one of these types (not JSON) is the input's `field` as text (an OPML document); JSON is taken too. */
  rawBody?: { field: string; contentTypes: readonly string[] };
}

export interface ErrorIssue {
  path: (string | number)[];
  message: string;
}

export const GENERIC_500 = "Internal server error";

export const t = initTRPC
  .context<TrpcContext>()
  .meta<Meta>()
  .create({
    // Never stack traces or internals: 500s say only that something failed (the cause is logged).
    isDev: false,
    errorFormatter({ shape, error }) {
      const issues = zodIssues(error);
      const message = error.code === "INTERNAL_SERVER_ERROR" ? GENERIC_500 : issues ? "Input validation failed" : shape.message;
      return {
        code: shape.code,
        message,
        data: { code: shape.data.code, httpStatus: shape.data.httpStatus, ...(issues && { issues }) },
      };
    },
  });

function zodIssues(error: TRPCError): ErrorIssue[] | undefined {
  if (error.code !== "BAD_REQUEST" || (error.cause as Error | undefined)?.name !== "ZodError") return undefined;
  return validationIssues(error.cause as unknown as ZodError);
}

/** A Zod error's issues as the error body lists them. */
export function validationIssues(error: ZodError): ErrorIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map((key) => (typeof key === "symbol" ? String(key) : key)),
    message: issue.message,
  }));
}

export function logUnexpected(error: TRPCError, path: string | undefined): void {
  if (error.code === "INTERNAL_SERVER_ERROR") log.error(`unexpected error in ${path ?? "request"}`, error.cause ?? error);
}
