// The HTTP side of webhook deliveries, in a thread of its own (see thread-poster.ts): each POST's
// address checks, DNS, request and answer run here, off the event loop that answers the API.
import { ImportError } from "../imports/import-error";
import { resolverWith, type ResolveOverrides } from "../imports/resolve-overrides";
import { createSafePoster, keepConnections, type KeptConnections, type Poster } from "../imports/safe-fetch";
import type { ThreadAnswer, ThreadRequest } from "./thread-poster";

declare const self: Worker;

let post: Poster | undefined;
const kept = new Map<number, KeptConnections>();
const inFlight = new Map<number, AbortController>();

self.onmessage = (event: MessageEvent<ThreadRequest>) => {
  const message = event.data;
  switch (message.kind) {
    case "setup": {
      const overrides: ResolveOverrides | undefined = message.overrides;
      post = createSafePoster({ ...message.options, ...(overrides?.size ? { resolve: resolverWith(overrides) } : {}) });
      return;
    }
    case "post":
      void send(message);
      return;
    case "abort":
      inFlight.get(message.id)?.abort();
      return;
    case "close":
      kept.get(message.run)?.close();
      kept.delete(message.run);
      return;
  }
};

async function send(message: Extract<ThreadRequest, { kind: "post" }>): Promise<void> {
  const controller = new AbortController();
  inFlight.set(message.id, controller);
  let connections: KeptConnections | undefined;
  if (message.run !== undefined) {
    connections = kept.get(message.run);
    if (!connections) kept.set(message.run, (connections = keepConnections()));
  }
  let answer: ThreadAnswer;
  try {
    if (!post) throw new Error("the delivery thread was not set up");
    const outcome = await post(message.url, { headers: message.headers, body: message.body, signal: controller.signal, ...(connections && { connections }) });
    answer = { id: message.id, status: outcome.status };
  } catch (error) {
    answer = {
      id: message.id,
      error: error instanceof ImportError ? { message: error.message, reason: error.reason, permanent: error.permanent, refused: true } : { message: error instanceof Error ? error.message : String(error) },
    };
  } finally {
    inFlight.delete(message.id);
  }
  self.postMessage(answer);
}
