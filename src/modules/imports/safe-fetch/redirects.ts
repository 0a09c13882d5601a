import type { IncomingMessage } from "node:http";
import { ImportError } from "../import-error";
import { checkTarget } from "./address-pinning";
import { displayUrl, type Hop, parseUrl } from "./fetch-errors";
import type { Settings } from "./options";
import { send } from "./send-request";

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

// Credentials a caller meant for one site must not follow a redirect to another.
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/**
 * Sends to `startUrl` and follows its redirects, each hop checked before it is sent; the final
 * answer's body is not read. `redirects` lists each redirect's status and target, in order.
 */
export async function followRedirects(
  settings: Settings,
  startUrl: string,
  startHeaders: Record<string, string>,
  signal: AbortSignal,
): Promise<{ hop: Hop; response: IncomingMessage; redirects: { status: number; to: URL }[] }> {
  const start = parseUrl(startUrl);
  let hop: Hop = { url: start, label: displayUrl(start) };
  let headers = startHeaders;
  checkTarget(settings, hop);
  const redirects: { status: number; to: URL }[] = [];
  for (;;) {
    const response = await send(settings, hop, headers, signal);
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(response.statusCode ?? 0) || !location) {
      return { hop, response, redirects };
    }
    response.destroy();
    if (redirects.length >= settings.maxRedirects) {
      throw new ImportError(
        `Could not fetch ${displayUrl(start)}: too many redirects (more than ${settings.maxRedirects})`,
        { permanent: true },
      );
    }
    const next = resolveLocation(location, hop);
    redirects.push({ status: response.statusCode ?? 0, to: next });
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
