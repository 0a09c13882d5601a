import type { AnyRouter } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { TrpcContext } from "../trpc/context";
import { errorHeaders } from "../trpc/errors";
import { logUnexpected } from "../trpc/init";
import { edgeError, PayloadTooLargeError } from "./error-response";
import { bodyLimits, DEFAULT_BODY_LIMIT } from "./procedure-meta";
import { readBodyText } from "./request-body";

const ENDPOINT = "/trpc";
// Answers carry notes' text: a browser must never read them as anything but JSON.
const NOSNIFF = { "x-content-type-options": "nosniff" };
// Room per call for a batch body's `{"0": ..., "1": ...}` around the inputs.
const BATCH_ENVELOPE_BYTES = 16;

/** tRPC's own transport at /trpc, for typed clients; same procedures, same per-procedure body limits as REST. */
export function createTrpcHandler(router: AnyRouter, createContext: (request: Request) => TrpcContext) {
  const limits = bodyLimits(router);
  const limitOf = (path: string) => limits.get(path) ?? DEFAULT_BODY_LIMIT;

  return async function handleTrpc(request: Request): Promise<Response> {
    let body: string | undefined;
    if (request.method !== "GET" && request.method !== "HEAD") {
      try {
        body = await readCappedBody(request);
      } catch (error) {
        if (error instanceof PayloadTooLargeError) return edgeError("PAYLOAD_TOO_LARGE", error.message);
        throw error;
      }
    }
    const capped = new Request(request.url, { method: request.method, headers: request.headers, body, signal: request.signal });
    return fetchRequestHandler({
      endpoint: ENDPOINT,
      req: capped,
      router,
      createContext: () => createContext(request),
      responseMeta: ({ errors }) => ({ headers: { ...NOSNIFF, ...(errors[0] && errorHeaders(errors[0])) } }),
      onError: ({ error, path }) => logUnexpected(error, path),
    });
  };

  /**
   * One call's body is held to its procedure's limit. A batch body (`?batch=1`) is held to the
   * largest limit among its calls, and each call's input to its own, so batching lends no call a
   * larger limit than it has alone.
   */
  async function readCappedBody(request: Request): Promise<string> {
    const url = new URL(request.url);
    const path = safeDecode(url.pathname.slice(ENDPOINT.length + 1));
    if (url.searchParams.get("batch") !== "1") return readBodyText(request, limitOf(path));

    const calls = path.split(",");
    const callLimits = calls.map(limitOf);
    const text = await readBodyText(request, Math.max(...callLimits) + BATCH_ENVELOPE_BYTES * calls.length);
    if (Buffer.byteLength(text) <= Math.min(...callLimits)) return text;
    let inputs: unknown;
    try {
      inputs = JSON.parse(text);
    } catch {
      return text; // tRPC answers malformed JSON itself
    }
    if (typeof inputs !== "object" || inputs === null) return text;
    calls.forEach((call, index) => {
      const input = (inputs as Record<string, unknown>)[index];
      if (input !== undefined && Buffer.byteLength(JSON.stringify(input)) > callLimits[index]!) {
        throw new PayloadTooLargeError(callLimits[index]!, `The input of ${call}`);
      }
    });
    return text;
  }
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path; // tRPC answers the bad escape itself
  }
}
