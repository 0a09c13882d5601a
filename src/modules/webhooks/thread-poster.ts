import { ImportError } from "../imports/import-error";
import type { ResolveOverrides } from "../imports/resolve-overrides";
import type { KeptConnections, Poster, SafeFetcherOptions } from "../imports/safe-fetch";

export type ThreadRequest =
  | { kind: "setup"; options: Pick<SafeFetcherOptions, "allowPrivateNetworks" | "timeoutMs" | "maxRedirects">; overrides?: ResolveOverrides }
  | { kind: "post"; id: number; url: string; headers: Record<string, string>; body: string; run?: number }
  | { kind: "abort"; id: number }
  | { kind: "close"; run: number };

export type ThreadAnswer = { id: number; status: number } | { id: number; error: { message: string; reason?: string; permanent?: boolean; refused?: boolean } };

interface KeptRun extends KeptConnections {
  run: number;
}

/**
 * safe-fetch's poster, run in a thread of its own (delivery-thread.ts): a process that answers the
 * API and delivers webhooks (ROLE=all) keeps each POST's work — the address rules, DNS, the
 * request and its answer — off the event loop that answers note writes, which was what deliveries
 * cost the writes beside them (bench:webhooks). The rules and the outcome are the poster's own:
 * an ImportError (blocked address, timeout, refused connection) comes back as one. `keepConnections`
 * keeps a group's connections open in the thread until closed.
 */
export function createThreadPoster(options: Pick<SafeFetcherOptions, "allowPrivateNetworks" | "timeoutMs" | "maxRedirects"> & { overrides?: ResolveOverrides }): {
  post: Poster;
  keepConnections: () => KeptConnections;
} {
  let thread: Worker | undefined;
  let nextId = 1;
  let nextRun = 1;
  const waiting = new Map<number, { resolve: (status: number) => void; reject: (error: unknown) => void }>();

  function started(): Worker {
    if (thread) return thread;
    const worker = new Worker(new URL("./delivery-thread.ts", import.meta.url).href, { name: "webhook deliveries" });
    // Not a reason to keep the process alive: a shutdown ends it with the rest.
    (worker as Worker & { unref(): void }).unref();
    worker.onmessage = (event: MessageEvent<ThreadAnswer>) => {
      const answer = event.data;
      const pending = waiting.get(answer.id);
      if (!pending) return;
      waiting.delete(answer.id);
      if ("status" in answer) pending.resolve(answer.status);
      else if (answer.error.refused) pending.reject(new ImportError(answer.error.message, { permanent: answer.error.permanent ?? false, reason: answer.error.reason }));
      else pending.reject(new Error(answer.error.message));
    };
    worker.onerror = (event) => {
      // The thread died: every request in it fails (the job queue retries them), and the next starts a new one.
      thread = undefined;
      for (const [id, pending] of waiting) {
        waiting.delete(id);
        pending.reject(new Error(`the delivery thread stopped: ${event.message}`));
      }
    };
    const { overrides, ...fetchOptions } = options;
    worker.postMessage({ kind: "setup", options: fetchOptions, ...(overrides?.size ? { overrides } : {}) } satisfies ThreadRequest);
    return (thread = worker);
  }

  const post: Poster = (url, request) => {
    const worker = started();
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const signal = request.signal;
      const cancel = () => {
        waiting.delete(id);
        worker.postMessage({ kind: "abort", id } satisfies ThreadRequest);
        reject(signal!.reason);
      };
      if (signal?.aborted) return cancel();
      signal?.addEventListener("abort", cancel, { once: true });
      const done = () => signal?.removeEventListener("abort", cancel);
      waiting.set(id, {
        resolve: (status) => {
          done();
          resolve({ status });
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      const run = (request.connections as KeptRun | undefined)?.run;
      worker.postMessage({ kind: "post", id, url, headers: request.headers, body: request.body, ...(run !== undefined && { run }) } satisfies ThreadRequest);
    });
  };

  return {
    post,
    keepConnections() {
      const run = nextRun++;
      return {
        run,
        close: () => thread?.postMessage({ kind: "close", run } satisfies ThreadRequest),
      } satisfies KeptRun;
    },
  };
}
