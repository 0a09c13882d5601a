import http, { type IncomingMessage } from "node:http";
import https from "node:https";

/** A short answer body is read to its end so the connection can be used again; a longer one closes it. */
export const KEPT_BODY_MAX_BYTES = 64 * 1024;

/**
 * Connections kept open between POSTs (HTTP keep-alive), for a run of deliveries to one receiver:
 * a new connection per request cost about twice the CPU of reusing one. The address rules still
 * hold at each request: it resolves and checks the host again, and a kept connection to an
 * address that is not among the ones just checked is closed rather than used. `close()` ends them.
 */
export interface KeptConnections {
  close(): void;
}

export interface Keeper extends KeptConnections {
  agent(secure: boolean): http.Agent;
  /** Closes idle connections to `host:port` whose peer is not one of `addresses`. */
  dropOthers(host: string, port: string | number, addresses: readonly string[]): void;
}

export function keepConnections(): KeptConnections {
  const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 1 }), https: new https.Agent({ keepAlive: true, maxSockets: 1 }) };
  const keeper: Keeper = {
    agent: (secure) => (secure ? agents.https : agents.http),
    dropOthers(host, port, addresses) {
      for (const agent of [agents.http, agents.https]) {
        for (const [name, sockets] of Object.entries(agent.freeSockets)) {
          if (!name.startsWith(`${host}:${port}:`)) continue;
          for (const socket of sockets ?? []) {
            const peer = socket.remoteAddress?.replace(/^::ffff:/, "");
            if (!peer || !addresses.includes(peer)) socket.destroy();
          }
        }
      }
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
  return keeper;
}

/** Reads and drops a short answer body, so its connection goes back to be reused; never fails (the status is the answer). */
export function drainShortBody(response: IncomingMessage, signal: AbortSignal): Promise<void> {
  if (Number(response.headers["content-length"]) > KEPT_BODY_MAX_BYTES) {
    response.destroy();
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    let bytes = 0;
    const done = () => {
      signal.removeEventListener("abort", cut);
      resolve();
    };
    const cut = () => {
      response.destroy();
      done();
    };
    signal.addEventListener("abort", cut, { once: true });
    response.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > KEPT_BODY_MAX_BYTES) cut();
    });
    response.once("end", done);
    response.once("error", done);
    response.once("close", done);
  });
}
