import { cookieValue, pageCookie, pageCookieName } from "./page-cookies";
import { randomSecret, sameSecret } from "./secrets";

/** How long the login page's form stays usable; a later submit gets a fresh form and a clear message. */
const LOGIN_CSRF_TTL_S = 3600;
const COOKIE = "rhizome_oauth_csrf";
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/*
 * The login step's CSRF defence (double submit): the login page sets a random token in a cookie
 * and puts the same token in its form; a login POST is acted on only when the two agree, which
 * another site cannot arrange (it can neither read the cookie nor, with `__Host-`, plant one).
 */

/** The token the request's cookie already holds (so several open tabs keep working), or a new one. */
export function loginCsrfToken(request: Request, publicUrl: string): string {
  const held = cookieValue(request, pageCookieName(COOKIE, publicUrl));
  return held !== null && TOKEN.test(held) ? held : randomSecret();
}

export function loginCsrfCookie(token: string, publicUrl: string): string {
  return pageCookie(COOKIE, token, { publicUrl, maxAgeSeconds: LOGIN_CSRF_TTL_S, sameSite: "Strict" });
}

/** Whether the form's token is the one in the request's cookie. */
export function loginCsrfMatches(request: Request, publicUrl: string, fromForm: string | null): boolean {
  const held = cookieValue(request, pageCookieName(COOKIE, publicUrl));
  return held !== null && fromForm !== null && TOKEN.test(held) && sameSecret(held, fromForm);
}
