import { log } from "../../log";
import type { ChangeFeed } from "./change-feed";
import type { StreamCredential } from "./stream-credential";
import type { StreamSink } from "./user-channel";

/** Chunks a client may leave unread before its stream is ended (it is not reading, or far too slowly). */
const MAX_UNREAD_CHUNKS = 1_000;

const encoder = new TextEncoder();

/**
 * One user's `text/event-stream`: `graph` events (the build status, first right after connecting)
 * and `task` events (a task record), each carrying the newest state when sent, every one with an
 * increasing `id:`; `: keep-alive` comments in between. The stream ends when the client goes away
 * (`signal`, or the body being cancelled) or when `credential` no longer stands, and then leaves the feed.
 */
export function openEventStream({
  userId,
  credential,
  feed,
  signal,
}: {
  userId: number;
  credential: StreamCredential;
  feed: ChangeFeed;
  signal: AbortSignal;
}): Response {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let lastId = 0;
  let closed = false;
  let unsubscribe = () => {};

  const stop = () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    signal.removeEventListener("abort", stop);
  };
  const end = () => {
    if (closed) return;
    stop();
    try {
      controller.close();
    } catch {
      // already closed or cancelled by the client
    }
  };
  const write = (text: string) => {
    if (closed) return;
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      return stop(); // the client went away and the stream is already closed
    }
    if ((controller.desiredSize ?? 0) < -MAX_UNREAD_CHUNKS) {
      log.warn(`closing the event stream of user ${userId}: the client is not reading it`);
      end();
    }
  };
  const sink: StreamSink = {
    send: (event, data) => write(`id: ${++lastId}\nevent: ${event}\ndata: ${data}\n\n`),
    keepAlive: () => write(": keep-alive\n\n"),
    close: end,
  };

  const body = new ReadableStream<Uint8Array>({
    start(started) {
      controller = started;
      if (signal.aborted) return void stop();
      signal.addEventListener("abort", stop);
      unsubscribe = feed.subscribe(userId, sink, credential);
    },
    cancel: stop,
  });
  return new Response(body, {
    status: 200,
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      // Proxies such as nginx would otherwise buffer the stream.
      "X-Accel-Buffering": "no",
    },
  });
}
