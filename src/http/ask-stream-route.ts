import { authenticateFor } from "../modules/auth/authenticate";
import { askContext } from "../modules/ask/ask-context";
import { askQuestion } from "../modules/ask/ask-question";
import { askInput } from "../modules/ask/schemas";
import type { ServiceContext } from "../modules/context";
import { log } from "../log";
import { toTrpcError } from "../trpc/errors";
import { edgeError, jsonError, PayloadTooLargeError, serviceErrorResponse } from "./error-response";
import { DEFAULT_BODY_LIMIT } from "./procedure-meta";
import { mediaType, readBodyText } from "./request-body";

/** Whether a POST /api/ask wants the answer as server-sent events rather than one JSON body. */
export function wantsEventStream(request: Request): boolean {
  return request.method === "POST" && (request.headers.get("accept") ?? "").toLowerCase().includes("text/event-stream");
}

/**
 * POST /api/ask with `Accept: text/event-stream`: the same question, answered as events —
 * `passages` (passages and concepts), `delta` ({text}) as the answer is written, `citation`
 * ({n, …citation}) as each is first cited, and `done` with the whole response. Validation,
 * authentication and their errors are the procedure's; a failure after the stream opened ends it
 * with an `error` event holding the contract's error body.
 */
export function createAskStreamRoute({ services, keepOpen }: { services: ServiceContext; keepOpen(request: Request): void }) {
  return async function handleAskStream(request: Request): Promise<Response> {
    let userId: number;
    let input;
    try {
      ({ user: { id: userId } } = await authenticateFor(services.db, request.headers.get("authorization"), "ask"));
      if (mediaType(request) !== "application/json") return edgeError("UNSUPPORTED_MEDIA_TYPE", "Send the question as application/json");
      let json: unknown;
      try {
        json = JSON.parse(await readBodyText(request, DEFAULT_BODY_LIMIT));
      } catch (error) {
        if (error instanceof PayloadTooLargeError) return edgeError("PAYLOAD_TOO_LARGE", error.message);
        return edgeError("BAD_REQUEST", "Malformed request body");
      }
      const parsed = askInput.safeParse(json);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((issue) => ({ path: issue.path.map((key) => (typeof key === "symbol" ? String(key) : key)), message: issue.message }));
        return jsonError(400, { code: "BAD_REQUEST", message: "Input validation failed", issues });
      }
      input = parsed.data;
    } catch (error) {
      return serviceErrorResponse(error, "POST /api/ask (stream)");
    }

    keepOpen(request);
    const encoder = new TextEncoder();
    const abort = new AbortController();
    request.signal.addEventListener("abort", () => abort.abort(), { once: true });
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        let closed = false;
        const send = (event: string, data: unknown) => {
          if (closed) return;
          try {
            controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
          } catch {
            closed = true; // the client went away
          }
        };
        try {
          const result = await askQuestion(
            { ctx: askContext({ ...services, userId }), input },
            {
              signal: abort.signal,
              listener: {
                passages: (passages, concepts) => send("passages", { passages, concepts }),
                delta: (text) => send("delta", { text }),
                citation: (n, citation) => send("citation", { n, ...citation }),
              },
            },
          );
          send("done", result);
        } catch (error) {
          // A known failure (a busy database, search still indexing) keeps its code and words.
          const mapped = toTrpcError(error);
          if (mapped) send("error", { code: mapped.code, message: mapped.message });
          else {
            log.error("unexpected error in POST /api/ask (stream)", error);
            send("error", { code: "INTERNAL_SERVER_ERROR", message: "Internal server error" });
          }
        }
        closed = true;
        controller.close();
      },
      cancel() {
        abort.abort();
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" } });
  };
}
