import { expect } from "bun:test";
import { createHash, randomBytes } from "node:crypto";

/** A PKCE pair (S256). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export async function registerClient(baseUrl: string, redirectUris: string[], extra: Record<string, unknown> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${baseUrl}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Hostile test client", redirect_uris: redirectUris, ...extra }),
  });
  return { status: response.status, body: await response.json().catch(() => null), headers: response.headers };
}

export function form(fields: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const one of [value].flat()) params.append(name, one);
  return params.toString();
}

export async function postForm(url: string, fields: Record<string, string | string[]>, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body: form(fields) });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: json };
}

/** The hidden `csrf_token` of a page. */
export function csrfOf(html: string): string {
  const match = html.match(/name="csrf_token" value="([^"]+)"/);
  expect(match).not.toBeNull();
  return match![1]!;
}

/** Opens the authorization page's login form as a browser would: its CSRF cookie (`name=value`) and the form's `csrf_token`. */
export async function loginForm(baseUrl: string, request: Record<string, string>): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const response = await fetch(`${baseUrl}/oauth/authorize?${new URLSearchParams(request)}`, { redirect: "manual" });
  expect(response.status).toBe(200);
  const setCookie = response.headers.get("set-cookie")!;
  return { cookie: setCookie.split(";")[0]!, csrf: csrfOf(await response.text()), setCookie };
}

/**
 * Logs in on the authorization page with `request`'s parameters (no browser): returns the page
 * login's cookie and the consent page's CSRF token.
 */
export async function pageLogin(baseUrl: string, request: Record<string, string>, username: string, password: string): Promise<{ cookie: string; csrf: string; html: string }> {
  const form = await loginForm(baseUrl, request);
  const response = await postForm(`${baseUrl}/oauth/authorize`, { ...request, step: "login", csrf_token: form.csrf, username, password }, { cookie: form.cookie });
  expect(response.status).toBe(200);
  const cookie = response.headers.get("set-cookie")!.split(";")[0]!;
  return { cookie, csrf: csrfOf(response.text), html: response.text };
}

/** Logs in and allows `scopes`: the code from the 303 to the redirect URI. */
export async function codeFor(baseUrl: string, request: Record<string, string>, username: string, password: string, scopes: string[]): Promise<{ code: string; location: URL }> {
  const { cookie, csrf } = await pageLogin(baseUrl, request, username, password);
  const response = await postForm(`${baseUrl}/oauth/authorize`, { ...request, step: "consent", csrf_token: csrf, decision: "allow", allow_scope: scopes }, { cookie });
  expect(response.status).toBe(303);
  const location = new URL(response.headers.get("location")!);
  return { code: location.searchParams.get("code")!, location };
}
