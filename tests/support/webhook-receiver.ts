// A webhook receiver on loopback that speaks plain HTTP as any real one would: it records every
// request (headers and raw body), checks each signature with the `standardwebhooks` library, and
// answers as the test says (a status, or never).
import { Webhook } from "standardwebhooks";

export interface ReceivedDelivery {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  json: { type: string; timestamp: string; data: Record<string, any> };
  /** Null when `standardwebhooks` accepted the signature under the path's secret; else why not. */
  verifyError: string | null;
}

export interface WebhookReceiver {
  origin: string;
  received: ReceivedDelivery[];
  /** Connections the receiver saw at all (a refused delivery must leave this at 0). */
  connections(): number;
  /** The secret each path's deliveries are checked against. */
  secrets: Map<string, string>;
  /** What to answer a request (default 200); a promise that never settles hangs it. */
  answer: (delivery: ReceivedDelivery, request: Request) => number | Promise<number>;
  stop(): void;
}

export function startWebhookReceiver(): WebhookReceiver {
  let connections = 0;
  const receiver: WebhookReceiver = {
    origin: "",
    received: [],
    connections: () => connections,
    secrets: new Map(),
    answer: () => 200,
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 60, // longer than the service's 10 s cut, so the cut is the service's
    async fetch(request) {
      connections++;
      const url = new URL(request.url);
      const body = await request.text();
      const headers = Object.fromEntries(request.headers);
      let verifyError: string | null = "no secret for this path";
      const secret = receiver.secrets.get(url.pathname);
      if (secret) {
        try {
          new Webhook(secret).verify(body, headers);
          verifyError = null;
        } catch (error) {
          verifyError = (error as Error).message;
        }
      }
      let json: ReceivedDelivery["json"];
      try {
        json = JSON.parse(body);
      } catch {
        json = { type: "(not JSON)", timestamp: "", data: {} };
      }
      const delivery = { path: url.pathname, id: headers["webhook-id"] ?? "", timestamp: headers["webhook-timestamp"] ?? "", signature: headers["webhook-signature"] ?? "", body, json, verifyError };
      receiver.received.push(delivery);
      return new Response(null, { status: await receiver.answer(delivery, request) });
    },
  });
  receiver.origin = `http://127.0.0.1:${server.port}`;
  return receiver;
}
