import { describe, expect, test } from "bun:test";
import { loginCsrfCookie, loginCsrfCookieName, loginCsrfMatches, loginCsrfToken } from "../../src/oauth/login-csrf";

describe("the login step's CSRF cookie", () => {
  test("over https it is a __Host- cookie: Secure, for the whole origin, HttpOnly, SameSite=Strict", () => {
    const token = loginCsrfToken(null);
    expect(loginCsrfCookie(token, "https://notes.example.com")).toBe(`__Host-rhizome_oauth_csrf=${token}; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=3600`);
    expect(loginCsrfCookieName("https://notes.example.com")).toBe("__Host-rhizome_oauth_csrf");
  });

  test("over plain http (no __Host- without Secure) it is kept to /oauth", () => {
    const token = loginCsrfToken(null);
    expect(loginCsrfCookie(token, "http://127.0.0.1:8080")).toBe(`rhizome_oauth_csrf=${token}; Path=/oauth; HttpOnly; SameSite=Strict; Max-Age=3600`);
  });

  test("a well-formed token already in the cookie is kept (tabs open side by side keep working); anything else is replaced", () => {
    const token = loginCsrfToken(null);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(loginCsrfToken(token)).toBe(token);
    for (const planted of ["", "short", `${token}; Path=/`, "a".repeat(44)]) expect(loginCsrfToken(planted)).not.toBe(planted);
  });

  test("the form's token must equal the cookie's", () => {
    const token = loginCsrfToken(null);
    expect(loginCsrfMatches(token, token)).toBe(true);
    expect(loginCsrfMatches(token, loginCsrfToken(null))).toBe(false);
    expect(loginCsrfMatches(null, token)).toBe(false);
    expect(loginCsrfMatches(token, null)).toBe(false);
    expect(loginCsrfMatches("", "")).toBe(false);
  });
});
