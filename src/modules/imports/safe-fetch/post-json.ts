import { ipLiteralOf } from "../address-policy";
import { checkTarget, resolveChecked } from "./address-pinning";
import { withDeadline } from "./deadline";
import { displayUrl, type Hop, parseUrl } from "./fetch-errors";
import { drainShortBody, KEPT_BODY_MAX_BYTES, type Keeper, type KeptConnections } from "./kept-connections";
import { type SafeFetcherOptions, type Settings, settingsOf } from "./options";
import { send } from "./send-request";

/** What a POST came back with; its body is not read. */
export interface PostOutcome {
  status: number;
}

export type Poster = (
  url: string,
  request: { headers: Record<string, string>; body: string; signal?: AbortSignal; connections?: KeptConnections },
) => Promise<PostOutcome>;

/**
 * One JSON POST under the same address rules (checked after DNS, the socket pinned to the checked
 * addresses) and one deadline; a redirect is not followed (a 3xx is the answer). For webhooks: the
 * errors are ImportErrors whose `reason` says in a few words why there was no answer. With
 * `connections`, the connection is kept for the next POST (see keepConnections).
 */
export function createSafePoster(options: SafeFetcherOptions): Poster {
  const settings = settingsOf(options);
  // Bun's fetch sends through an HTTP_PROXY from the environment, which node:http (and so every
  // other request of ours) does not: with one set, plain HTTP stays on node:http too.
  const fetchDirect = !process.env.HTTP_PROXY && !process.env.http_proxy;
  return (url, request) =>
    withDeadline(settings, url, { signal: request.signal }, () => false, async (signal) => {
      const hop: Hop = { url: parseUrl(url), label: displayUrl(url) };
      checkTarget(settings, hop);
      const headers = { "content-type": "application/json", ...request.headers };
      const keeper = request.connections as Keeper | undefined;
      if (keeper && fetchDirect && hop.url.protocol === "http:") return postPinned(settings, hop, headers, request.body, signal);
      const response = await send(settings, hop, headers, signal, { method: "POST", body: request.body, keeper });
      if (keeper) await drainShortBody(response, signal);
      else response.destroy();
      return { status: response.statusCode ?? 0 };
    });
}

/**
 * A plain-HTTP POST of a kept-connections run through the runtime's own fetch, addressed to the
 * address just resolved and checked (so the connection it opens or reuses is to that address, and
 * the host goes in the Host header): a quarter of the CPU of node:http's client for the same
 * request (measured), and its pool keeps the connection. HTTPS stays on node:http (send), whose
 * agent keys connections by host name and checks the certificate against it.
 */
async function postPinned(settings: Settings, hop: Hop, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<PostOutcome> {
  const { url } = hop;
  const literal = ipLiteralOf(url.hostname);
  const [first] = await resolveChecked(settings, hop, literal ?? url.hostname);
  const host = first!.family === 6 ? `[${first!.address}]` : first!.address;
  const response = await fetch(`http://${host}:${url.port || 80}${url.pathname}${url.search}`, {
    method: "POST",
    headers: { ...headers, host: url.host },
    body,
    redirect: "manual",
    signal,
    keepalive: true,
  });
  // Read to its end (a short body of known length) so the connection goes back to the pool; any other is dropped with it.
  const length = response.headers.get("content-length");
  if (length !== null && Number(length) <= KEPT_BODY_MAX_BYTES) await response.arrayBuffer().catch(() => undefined);
  else await response.body?.cancel().catch(() => undefined);
  return { status: response.status };
}
