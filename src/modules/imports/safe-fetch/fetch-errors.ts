import { ImportError } from "../import-error";

/** One request in a redirect chain; `label` names it in errors. */
export interface Hop {
  url: URL;
  label: string;
}

export function parseUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new ImportError(`Refused to fetch ${displayUrl(url)}: it is not a valid URL`, { permanent: true });
  }
}

export function refusal(hop: Hop, reason: string, shortReason = reason): ImportError {
  return new ImportError(`Refused to fetch ${hop.label}: ${reason}`, { permanent: true, reason: shortReason });
}

export function failure(hop: Hop, reason: string, permanent: boolean, cause?: unknown): ImportError {
  return new ImportError(`Could not fetch ${hop.label}: ${reason}`, { permanent, cause, reason });
}

/** Maps socket/TLS/parser errors to our own words: upstream text never reaches the user. */
export function connectionFailure(shown: string, error: unknown): ImportError {
  const code = errorCode(error) ?? "";
  const fail = (reason: string, permanent: boolean) =>
    new ImportError(`Could not fetch ${shown}: ${reason}`, { permanent, cause: error, reason });
  if (code === "ECONNREFUSED") return fail("the server refused the connection", false);
  if (code === "ECONNRESET" || code === "EPIPE") return fail("the connection was reset", false);
  if (code === "ETIMEDOUT") return fail("the connection timed out", false);
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return fail("the server is unreachable", false);
  if (/CERT|SSL|TLS|SIGNATURE/i.test(code)) return fail("the site's TLS certificate is not valid", true);
  if (code.startsWith("HPE_")) return fail("the server sent a malformed HTTP response", false);
  if (code === "ERR_INVALID_CHAR" || code === "ERR_INVALID_HTTP_TOKEN") return fail("a request header is invalid", true);
  return fail("the connection failed", false);
}

export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A URL fit for an error message: no credentials, bounded length. */
export function displayUrl(url: string | URL): string {
  let text: string;
  if (typeof url === "string") {
    try {
      return displayUrl(new URL(url));
    } catch {
      text = url;
    }
  } else {
    const copy = new URL(url.href);
    copy.username = "";
    copy.password = "";
    text = copy.href;
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
