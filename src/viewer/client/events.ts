// The page's one event-stream client (CONTRACT.md "Live progress"): a single-use ticket from
// POST /api/auth/ticket, then EventSource("/api/events?ticket=..."), since EventSource cannot send
// an Authorization header. A dropped stream is reopened with a fresh ticket, never the spent one.
import { ApiError, post } from "./api";
import type { BuildStatus } from "./types";

export interface EventHandlers {
  /** The build status: right after connecting, then on every change. */
  graph(status: BuildStatus): void;
  task?(task: unknown): void;
  /** The server has no event stream (404), so live progress is off. */
  unavailable(message: string): void;
}

export interface EventStream {
  close(): void;
}

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 30_000;

export function followEvents(handlers: EventHandlers): EventStream {
  let source: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  let retryMs = FIRST_RETRY_MS;

  const retry = () => {
    if (closed) return;
    timer = setTimeout(connect, retryMs);
    retryMs = Math.min(LAST_RETRY_MS, retryMs * 2);
  };

  async function connect() {
    let ticket: string;
    try {
      ticket = (await post<{ ticket: string }>("/api/auth/ticket")).ticket;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return handlers.unavailable("Live progress is unavailable: this server has no /api/events");
      if (error instanceof ApiError && error.status === 401) return; // logged out: api.ts shows the login form
      return retry();
    }
    if (closed) return;
    source = new EventSource(`/api/events?ticket=${encodeURIComponent(ticket)}`);
    source.addEventListener("open", () => (retryMs = FIRST_RETRY_MS));
    source.addEventListener("graph", (event) => handlers.graph(JSON.parse((event as MessageEvent<string>).data) as BuildStatus));
    source.addEventListener("task", (event) => handlers.task?.(JSON.parse((event as MessageEvent<string>).data)));
    source.addEventListener("error", () => {
      // EventSource would reconnect with the same URL, whose ticket is spent: reopen ourselves.
      source?.close();
      source = undefined;
      retry();
    });
  }

  void connect();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      source?.close();
    },
  };
}
