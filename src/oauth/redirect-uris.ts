const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);
export const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;

/** An `http://` redirect URI on this machine (RFC 8252 section 7.3): native apps and CLIs pick a port at run time. */
function isLoopback(url: URL): boolean {
  return url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * Why a redirect URI may not be registered, or null when it may: `https://…`, or a loopback
 * `http://127.0.0.1|localhost|[::1]:<port>/…`; no fragment, no user name or password.
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > MAX_URI_LENGTH) return `is longer than ${MAX_URI_LENGTH} characters`;
  if (!URL.canParse(uri)) return "is not an absolute URL";
  const url = new URL(uri);
  if (url.hash || uri.includes("#")) return "has a fragment (#…), which a redirect URI may not have";
  if (url.username || url.password) return "carries a user name or password";
  if (url.protocol === "https:") return null;
  if (isLoopback(url)) return null;
  return "must be an https:// URL, or http:// on a loopback address (127.0.0.1, localhost or [::1])";
}

/** Exact match (RFC 9700 section 2.1), except the port of a loopback URI, which may differ. */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  if (!URL.canParse(registered) || !URL.canParse(requested)) return false;
  const [a, b] = [new URL(registered), new URL(requested)];
  if (!isLoopback(a) || !isLoopback(b)) return false;
  a.port = "";
  b.port = "";
  return a.href === b.href;
}
