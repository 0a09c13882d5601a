import { describe, expect, test } from "bun:test";
import { loginCsrfCookie, loginCsrfMatches, loginCsrfToken } from "../../src/oauth/login-csrf";

const HTTP = "http://127.0.0.1:8080";
const HTTPS = "https://notes.example.com";
const withCookie = (cookie: string | null, publicUrl = HTTP) => new Request(`${publicUrl}/oauth/authorize`, cookie === null ? {} : { headers: { cookie } });
const fresh = () => loginCsrfToken(withCookie(null), HTTP);

describe("the login step's CSRF token", () => {
  test("its cookie is HttpOnly and SameSite=Strict, and a __Host- cookie over https", () => {
    const token = fresh();
    expect(loginCsrfCookie(token, HTTP)).toBe(`rhizome_oauth_csrf=${token}; Path=/oauth; HttpOnly; SameSite=Strict; Max-Age=3600`);
    expect(loginCsrfCookie(token, HTTPS)).toStartWith(`__Host-rhizome_oauth_csrf=${token}; Path=/; Secure; HttpOnly; SameSite=Strict`);
  });

  test("a well-formed token already in the cookie is kept (tabs open side by side keep working); anything else is replaced", () => {
    const token = fresh();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(loginCsrfToken(withCookie(`rhizome_oauth_csrf=${token}`), HTTP)).toBe(token);
    for (const planted of ["", "short", "a".repeat(44), `${token.slice(0, 42)}!`]) {
      expect(loginCsrfToken(withCookie(`rhizome_oauth_csrf=${planted}`), HTTP)).not.toBe(planted);
    }
    // Over https only the __Host- cookie counts.
    expect(loginCsrfToken(withCookie(`rhizome_oauth_csrf=${token}`, HTTPS), HTTPS)).not.toBe(token);
    expect(loginCsrfToken(withCookie(`__Host-rhizome_oauth_csrf=${token}`, HTTPS), HTTPS)).toBe(token);
  });

  test("the form's token must equal the cookie's", () => {
    const token = fresh();
    expect(loginCsrfMatches(withCookie(`rhizome_oauth_csrf=${token}`), HTTP, token)).toBe(true);
    expect(loginCsrfMatches(withCookie(`rhizome_oauth_csrf=${token}`), HTTP, fresh())).toBe(false);
    expect(loginCsrfMatches(withCookie(null), HTTP, token)).toBe(false);
    expect(loginCsrfMatches(withCookie(`rhizome_oauth_csrf=${token}`), HTTP, null)).toBe(false);
    expect(loginCsrfMatches(withCookie("rhizome_oauth_csrf="), HTTP, "")).toBe(false);
    // A planted unprefixed cookie does not count over https.
    expect(loginCsrfMatches(withCookie(`rhizome_oauth_csrf=${token}`, HTTPS), HTTPS, token)).toBe(false);
  });
});
