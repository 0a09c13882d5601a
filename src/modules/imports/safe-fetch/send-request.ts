import type { LookupAddress } from "node:dns";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { ipLiteralOf } from "../address-policy";
import { checkedLookup, pinnedLookup, resolveChecked } from "./address-pinning";
import type { Hop } from "./fetch-errors";
import type { Keeper } from "./kept-connections";
import type { Settings } from "./options";

/** One request to a checked hop, its socket given only checked addresses; the answer's body is left to the caller. */
export async function send(
  settings: Settings,
  hop: Hop,
  headers: Record<string, string>,
  signal: AbortSignal,
  { method, body, keeper }: { method: "GET" | "POST"; body?: string; keeper?: Keeper } = { method: "GET" },
): Promise<IncomingMessage> {
  if (signal.aborted) throw signal.reason;
  const { url } = hop;
  const literal = ipLiteralOf(url.hostname);
  const secure = url.protocol === "https:";
  const port = url.port || (secure ? 443 : 80);
  // A kept connection skips the socket's own lookup, so the addresses are checked here, at every request.
  let checked: LookupAddress[] | undefined;
  if (keeper) {
    checked = await resolveChecked(settings, hop, literal ?? url.hostname);
    keeper.dropOthers(literal ?? url.hostname, port, checked.map(({ address }) => address));
  } else if (literal) settings.beforeConnect(literal);
  return new Promise((resolve, reject) => {
    // The lookup's own error wins over whatever error the client wraps it in.
    let lookupError: unknown;
    const request = (secure ? https : http).request(
      {
        host: literal ?? url.hostname,
        port,
        path: url.pathname + url.search,
        method,
        headers: { ...headers, host: url.host, ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}) },
        agent: keeper ? keeper.agent(secure) : false,
        ...(secure && !literal ? { servername: url.hostname } : {}),
        lookup: checked ? checkedLookup(checked) : pinnedLookup(settings, hop, (error) => (lookupError = error)),
      },
      (response) => {
        signal.removeEventListener("abort", onAbort);
        resolve(response);
      },
    );
    const onAbort = () => request.destroy(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    request.on("error", (error) => {
      signal.removeEventListener("abort", onAbort);
      reject(lookupError ?? error);
    });
    request.end(body);
  });
}
