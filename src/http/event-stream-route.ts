import type { Database } from "../db/client";
import { authenticateEventStream } from "../modules/events/authenticate-stream";
import type { ChangeFeed } from "../modules/events/change-feed";
import { openEventStream } from "../modules/events/event-stream";
import { edgeError, serviceErrorResponse } from "./error-response";

/**
 * GET /api/events: a plain route, since a stream is not a JSON procedure. `keepOpen` lifts the
 * server's idle timeout for this request only (Bun closes a connection silent for 10 s, and the
 * stream may say nothing but a keep-alive every 15 s).
 */
export function createEventStreamRoute({ db, feed, keepOpen }: { db: Database; feed: ChangeFeed; keepOpen(request: Request): void }) {
  return async function handleEvents(request: Request): Promise<Response> {
    if (request.method !== "GET") return edgeError("METHOD_NOT_SUPPORTED", `${request.method} is not allowed on /api/events; use GET`, { Allow: "GET" });
    let opener: Awaited<ReturnType<typeof authenticateEventStream>>;
    try {
      opener = await authenticateEventStream({ db, authorization: request.headers.get("authorization"), query: new URL(request.url).searchParams });
    } catch (error) {
      return serviceErrorResponse(error, "GET /api/events");
    }
    keepOpen(request);
    return openEventStream({ ...opener, feed, signal: request.signal });
  };
}
