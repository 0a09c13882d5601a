import { randomSecret, sameSecret } from "./secrets";

/** How long the login page's form stays usable; a later submit gets a fresh form and a clear message. */
const LOGIN_CSRF_TTL_S = 3600;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The login step's CSRF defence (double submit): the login page sets a random token in an HttpOnly
 * cookie and puts the same token in its form; a login POST is acted on only when the two agree, which
 * another site cannot arrange (it can neither read the cookie nor, with `__Host-`, plant one).
 */
export function loginCsrfCookieName(publicUrl: string): string {
  // `__Host-` needs Secure, so only an https service can have it.
  return isHttps(publicUrl) ? "__Host-rhizome_oauth_csrf" : "rhizome_oauth_csrf";
}

/** The token the cookie already holds (so several open tabs keep working), or a new one. */
export function loginCsrfToken(fromCookie: string | null): string {
  return fromCookie !== null && TOKEN.test(fromCookie) ? fromCookie : randomSecret();
}

export function loginCsrfCookie(token: string, publicUrl: string): string {
  const scope = isHttps(publicUrl) ? "; Path=/; Secure" : "; Path=/oauth";
  return `${loginCsrfCookieName(publicUrl)}=${token}${scope}; HttpOnly; SameSite=Strict; Max-Age=${LOGIN_CSRF_TTL_S}`;
}

/** Whether the form's token is the one in the cookie. */
export function loginCsrfMatches(fromCookie: string | null, fromForm: string | null): boolean {
  return fromCookie !== null && fromForm !== null && TOKEN.test(fromCookie) && sameSecret(fromCookie, fromForm);
}

function isHttps(publicUrl: string): boolean {
  return publicUrl.startsWith("https:");
}
