import type { IncomingMessage } from "node:http";
import { ImportError } from "../import-error";
import { checkTarget } from "./address-pinning";
import { displayUrl, type Hop, parseUrl } from "./fetch-errors";
import type { Settings } from "./options";
import { send } from "./send-request";

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

// Credentials a caller meant for one site must not follow a redirect to another.
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/** Sends to `startUrl` and follows its redirects, each hop checked before it is sent; the final answer's body is not read. */
export async function followRedirects(
  settings: Settings,
  startUrl: string,
  startHeaders: Record<string, string>,
  signal: AbortSignal,
): Promise<{ hop: Hop; response: IncomingMessage }> {
  const start = parseUrl(startUrl);
  let hop: Hop = { url: start, label: displayUrl(start) };
  let headers = startHeaders;
  checkTarget(settings, hop);
  for (let redirects = 0; ; redirects++) {
    const response = await send(settings, hop, headers, signal);
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(response.statusCode ?? 0) || !location) {
      return { hop, response };
    }
    response.destroy();
    if (redirects >= settings.maxRedirects) {
      throw new ImportError(
        `Could not fetch ${displayUrl(start)}: too many redirects (more than ${settings.maxRedirects})`,
        { permanent: true },
      );
    }
    const next = resolveLocation(location, hop);
    hop = { url: next, label: `${displayUrl(next)} (redirected from ${displayUrl(start)})` };
    checkTarget(settings, hop);
    if (next.origin !== start.origin) headers = withoutCredentials(headers);
  }
}

function resolveLocation(location: string, hop: Hop): URL {
  try {
    return new URL(location, hop.url);
  } catch {
    throw new ImportError(`Could not fetch ${hop.label}: it redirects to an invalid URL`, { permanent: true });
  }
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  const kept = { ...headers };
  for (const name of CREDENTIAL_HEADERS) delete kept[name];
  return kept;
}
