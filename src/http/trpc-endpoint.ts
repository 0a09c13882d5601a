import type { AnyRouter } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { TrpcContext } from "../trpc/context";
import { errorHeaders } from "../trpc/errors";
import { logUnexpected } from "../trpc/init";
import { edgeError, PayloadTooLargeError } from "./error-response";
import { readBodyText } from "./request-body";

/** tRPC's own transport at /trpc, for typed clients; same procedures, same limits. */
export function createTrpcHandler(router: AnyRouter, createContext: (request: Request) => TrpcContext, maxBodyBytes: number) {
  return async function handleTrpc(request: Request): Promise<Response> {
    let body: string | undefined;
    if (request.method !== "GET" && request.method !== "HEAD") {
      try {
        body = await readBodyText(request, maxBodyBytes);
      } catch (error) {
        if (error instanceof PayloadTooLargeError) return edgeError("PAYLOAD_TOO_LARGE", error.message);
        throw error;
      }
    }
    const capped = new Request(request.url, { method: request.method, headers: request.headers, body, signal: request.signal });
    return fetchRequestHandler({
      endpoint: "/trpc",
      req: capped,
      router,
      createContext: () => createContext(request),
      responseMeta: ({ errors }) => (errors[0] ? { headers: errorHeaders(errors[0]) } : {}),
      onError: ({ error, path }) => logUnexpected(error, path),
    });
  };
}
