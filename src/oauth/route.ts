import fs from "node:fs";
import { Elysia } from "elysia";
import type { Fetcher } from "../modules/imports/platforms/types";
import type { ServiceContext } from "../modules/context";
import { TooManyRequestsError, UnauthenticatedError } from "../modules/errors";
import { mediaType, readBodyText } from "../http/request-body";
import { PayloadTooLargeError } from "../http/error-response";
import { log } from "../log";
import { checkAuthorizationRequest, redirectTo, RedirectError, type AuthorizationRequest } from "./authorization-request";
import { consentPage, loginPage, pageCsp, problemPage, verifyPage } from "./authorize-page";
import { PageError, registerClient } from "./clients";
import { exchangeCode, issueCode, liveTokenCount, refreshGrant, revokeToken } from "./grants";
import { authorizationServerMetadata, OAUTH_PATHS, protectedResourceMetadata } from "./metadata";
import { NO_STORE, OAuthError, oauthErrorResponse } from "./oauth-error";
import { loginCsrfCookie, loginCsrfMatches, loginCsrfToken } from "./login-csrf";
import { cookieValue, pageCookie, pageCookieName } from "./page-cookies";
import { completeSecondFactor, csrfMatches, findPageLogin, PAGE_LOGIN_TTL_MS, startPageLogin, type PageLogin } from "./page-login";

export interface OAuthRouteOptions {
  services: ServiceContext;
  /** This service's external URL (PUBLIC_URL, else where it listens): the issuer and the resource's base. */
  publicUrl: () => string;
  /** The peer address, for the registration limit and the login throttle. */
  clientAddress: (request: Request) => string;
  /** Fetches client metadata documents under the import address rules. */
  fetchDocument: Fetcher;
}

const FORM_LIMIT = 64 * 1024;
const LOGIN_COOKIE = "rhizome_oauth_login";
const MAX_LIVE_TOKENS = 100;
const stylesheet = ["../viewer/viewer.css", "./page.css"].map((file) => fs.readFileSync(new URL(file, import.meta.url), "utf8")).join("\n");

/**
 * Rhizome as its own OAuth 2.1 authorization server, for its MCP endpoint (connectors) and its REST
 * API (the browser extension, a clipper): the metadata
 * documents (RFC 9728, RFC 8414), registration (RFC 7591, or a client metadata document), the
 * authorization page (log in, second factor, consent), the token endpoint and revocation (RFC 7009).
 */
export function oauthRoutes(options: OAuthRouteOptions) {
  const { db } = options.services;
  const ownOrigin = () => (URL.canParse(options.publicUrl()) ? new URL(options.publicUrl()).origin : null);
  const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
    Response.json(body, { status, headers: { "access-control-allow-origin": "*", ...headers } });
  const onlyMethod = (request: Request, method: string) =>
    request.method === method ? null : Response.json({ error: "invalid_request", error_description: `Use ${method}` }, { status: 405, headers: { Allow: method } });

  /** Runs an OAuth JSON endpoint: its errors in RFC 6749 form, a bug as `server_error`. */
  const oauthEndpoint = (where: string, handle: (request: Request) => Promise<Response>) => async (request: Request) => {
    try {
      return await handle(request);
    } catch (error) {
      if (error instanceof OAuthError) return oauthErrorResponse(error);
      if (error instanceof PayloadTooLargeError) return oauthErrorResponse(new OAuthError("invalid_request", error.message, 413));
      log.error(`unexpected error in ${where}`, error);
      return oauthErrorResponse(new OAuthError("server_error", "Internal server error", 500));
    }
  };

  const readForm = async (request: Request): Promise<URLSearchParams> => {
    if (mediaType(request) !== "application/x-www-form-urlencoded") {
      throw new OAuthError("invalid_request", "The body must be application/x-www-form-urlencoded");
    }
    const form = new URLSearchParams(await readBodyText(request, FORM_LIMIT));
    for (const name of new Set(form.keys())) {
      if (name !== "allow_scope" && form.getAll(name).length > 1) throw new OAuthError("invalid_request", `The parameter \`${name}\` is repeated`);
    }
    return form;
  };
  const required = (form: URLSearchParams, name: string): string => {
    const value = form.get(name);
    if (!value) throw new OAuthError("invalid_request", `Missing \`${name}\``);
    return value;
  };
  /** A public client names itself with `client_id`, in the form or as HTTP Basic's user. */
  const clientIdOf = (request: Request, form: URLSearchParams): string => {
    const basic = request.headers.get("authorization")?.match(/^Basic\s+([A-Za-z0-9+/=]+)$/i);
    if (basic) {
      const decoded = Buffer.from(basic[1]!, "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      try {
        if (colon > 0) return decodeURIComponent(decoded.slice(0, colon));
      } catch {
        // A stray `%`: the client's malformed credentials (RFC 6749 section 5.2), not a server error.
      }
      throw new OAuthError("invalid_client", "HTTP Basic credentials must be `<client_id>:` with the client id URL-encoded (RFC 6749 section 2.3.1)", 401, {
        "www-authenticate": 'Basic realm="rhizome"',
      });
    }
    return required(form, "client_id");
  };

  const register = oauthEndpoint("client registration", async (request) => {
    const wrong = onlyMethod(request, "POST");
    if (wrong) return wrong;
    if (mediaType(request) !== "application/json") throw new OAuthError("invalid_client_metadata", "The body must be application/json (RFC 7591)");
    let body: unknown;
    try {
      body = JSON.parse(await readBodyText(request, FORM_LIMIT));
    } catch (error) {
      if (error instanceof PayloadTooLargeError) throw error;
      throw new OAuthError("invalid_client_metadata", "The body is not JSON");
    }
    const registered = await registerClient({ db, clientAddress: options.clientAddress(request), body });
    return json(registered, 201, NO_STORE);
  });

  const token = oauthEndpoint("the token endpoint", async (request) => {
    const wrong = onlyMethod(request, "POST");
    if (wrong) return wrong;
    const form = await readForm(request);
    const grantType = required(form, "grant_type");
    const clientId = clientIdOf(request, form);
    const resource = form.get("resource");
    let answer;
    if (grantType === "authorization_code") {
      answer = await exchangeCode(
        db,
        { code: required(form, "code"), clientId, redirectUri: required(form, "redirect_uri"), codeVerifier: required(form, "code_verifier"), resource },
        options.publicUrl(),
      );
    } else if (grantType === "refresh_token") {
      answer = await refreshGrant(db, { refreshToken: required(form, "refresh_token"), clientId, scope: form.get("scope"), resource }, options.publicUrl());
    } else {
      throw new OAuthError("unsupported_grant_type", "This server grants `authorization_code` and `refresh_token`");
    }
    return json(answer, 200, NO_STORE);
  });

  const revoke = oauthEndpoint("token revocation", async (request) => {
    const wrong = onlyMethod(request, "POST");
    if (wrong) return wrong;
    const form = await readForm(request);
    await revokeToken(db, required(form, "token"));
    return new Response(null, { status: 200, headers: { "access-control-allow-origin": "*", ...NO_STORE } });
  });

  const authorize = async (request: Request): Promise<Response> => {
    let trustedRedirect: string | null = null;
    const page = (html: string, status = 200, headers: Record<string, string> = {}) =>
      new Response(html, {
        status,
        headers: {
          "content-type": "text/html; charset=utf-8",
          "content-security-policy": pageCsp(trustedRedirect),
          "x-frame-options": "DENY",
          "x-content-type-options": "nosniff",
          // Not no-referrer: under it a browser sends the page's own POSTs with `Origin: null`, which must count as foreign.
          "referrer-policy": "same-origin",
          ...NO_STORE,
          ...headers,
        },
      });
    const redirect = (location: string, headers: Record<string, string> = {}) => new Response(null, { status: 303, headers: { location, ...NO_STORE, ...headers } });
    try {
      if (request.method !== "GET" && request.method !== "POST") return page(problemPage(`${request.method} is not allowed here.`), 405, { Allow: "GET, POST" });
      const origin = request.headers.get("origin");
      if (request.method === "POST" && origin !== null && origin !== ownOrigin()) {
        return page(problemPage("This form was sent from another site; nothing was done."), 403);
      }
      const form = request.method === "POST" ? await readForm(request) : new URL(request.url).searchParams;
      const authorization = await checkAuthorizationRequest({ db, fetchDocument: options.fetchDocument, publicUrl: options.publicUrl(), params: form });
      trustedRedirect = authorization.redirectUri;
      const login = await findPageLogin(db, cookieValue(request, pageCookieName(LOGIN_COOKIE, options.publicUrl())));
      if (request.method === "GET") {
        if (login && !login.pendingTotp) return page(consentPage(authorization, login));
        return loginStep(authorization, request, page);
      }
      return await authorizeStep(authorization, form, login, request, page, redirect);
    } catch (error) {
      if (error instanceof PageError) return page(problemPage(error.message), 400);
      if (error instanceof RedirectError) {
        return redirect(redirectTo(error.redirectUri, { error: error.error, error_description: error.description, state: error.state }, options.publicUrl()));
      }
      if (error instanceof OAuthError) return page(problemPage(error.description), error.status);
      if (error instanceof PayloadTooLargeError) return page(problemPage(error.message), 413);
      log.error("unexpected error on the authorization page", error);
      return page(problemPage("Something went wrong on this server; nothing was shared. Try again."), 500);
    }
  };

  /** The login form, with the CSRF token its cookie (set here) holds. */
  const loginStep = (
    authorization: AuthorizationRequest,
    request: Request,
    page: (html: string, status?: number, headers?: Record<string, string>) => Response,
    error?: string,
    status = 200,
    headers: Record<string, string> = {},
  ): Response => {
    const publicUrl = options.publicUrl();
    const token = loginCsrfToken(request, publicUrl);
    return page(loginPage(authorization, token, error), status, { ...headers, "set-cookie": loginCsrfCookie(token, publicUrl) });
  };

  const authorizeStep = async (
    authorization: AuthorizationRequest,
    form: URLSearchParams,
    login: PageLogin | null,
    request: Request,
    page: (html: string, status?: number, headers?: Record<string, string>) => Response,
    redirect: (location: string) => Response,
  ): Promise<Response> => {
    const ctx = { ...options.services, clientAddress: () => options.clientAddress(request) };
    const step = form.get("step");
    if (step === "login") {
      if (!loginCsrfMatches(request, options.publicUrl(), form.get("csrf_token"))) {
        return loginStep(authorization, request, page, "This login form did not come from this page (its CSRF token is missing or wrong), so you were not logged in. Log in again here.", 403);
      }
      try {
        const started = await startPageLogin(ctx, form.get("username") ?? "", form.get("password") ?? "");
        const fresh = await findPageLogin(db, started.secret);
        const setCookie = { "set-cookie": pageCookie(LOGIN_COOKIE, started.secret, { publicUrl: options.publicUrl(), maxAgeSeconds: PAGE_LOGIN_TTL_MS / 1000, sameSite: "Lax" }) };
        return page(started.pendingTotp ? verifyPage(authorization, fresh!.csrfToken) : consentPage(authorization, fresh!), 200, setCookie);
      } catch (error) {
        if (error instanceof TooManyRequestsError) return loginStep(authorization, request, page, error.message, 429, { "retry-after": String(error.retryAfterSeconds) });
        if (error instanceof UnauthenticatedError) return loginStep(authorization, request, page, error.message, 401);
        throw error;
      }
    }
    if (!login) return loginStep(authorization, request, page, "Your login here has expired; log in again.", 401);
    if (!csrfMatches(login, form.get("csrf_token"))) {
      return page(problemPage("This form did not come from this page (its CSRF token is missing or wrong); nothing was granted."), 403);
    }
    if (step === "verify" && login.pendingTotp) {
      try {
        await completeSecondFactor(ctx, login, form.get("code") ?? "");
      } catch (error) {
        if (error instanceof TooManyRequestsError) return page(verifyPage(authorization, login.csrfToken, error.message), 429, { "retry-after": String(error.retryAfterSeconds) });
        if (error instanceof UnauthenticatedError) return page(verifyPage(authorization, login.csrfToken, error.message), 401);
        throw error;
      }
      return page(consentPage(authorization, login));
    }
    if (login.pendingTotp) return page(verifyPage(authorization, login.csrfToken), 401);
    if (step !== "consent") return page(consentPage(authorization, login));
    const issuer = options.publicUrl();
    if (form.get("decision") !== "allow") {
      return redirect(redirectTo(authorization.redirectUri, { error: "access_denied", error_description: "The user denied access", state: authorization.state }, issuer));
    }
    const chosen = new Set(form.getAll("allow_scope"));
    const scopes = authorization.scopes.filter((scope) => chosen.has(scope));
    if (scopes.length === 0) return page(consentPage(authorization, login, "Choose at least one permission, or Deny."), 400);
    if ((await liveTokenCount(db, login.userId)) >= MAX_LIVE_TOKENS) {
      return page(consentPage(authorization, login, `You have ${MAX_LIVE_TOKENS} live access tokens and connectors, the most an account may hold; revoke one first.`), 409);
    }
    const code = await issueCode(db, {
      clientId: authorization.client.clientId,
      clientName: authorization.client.clientName,
      userId: login.userId,
      redirectUri: authorization.redirectUri,
      codeChallenge: authorization.codeChallenge,
      scopes,
      resource: authorization.resource,
    });
    return redirect(redirectTo(authorization.redirectUri, { code, state: authorization.state }, issuer));
  };

  return new Elysia({ name: "oauth" })
    .get(OAUTH_PATHS.protectedResource, () => json(protectedResourceMetadata(options.publicUrl())))
    .get(OAUTH_PATHS.protectedResourceRoot, () => json(protectedResourceMetadata(options.publicUrl())))
    .get(OAUTH_PATHS.protectedResourceApi, () => json(protectedResourceMetadata(options.publicUrl(), "api")))
    .get(OAUTH_PATHS.authorizationServer, () => json(authorizationServerMetadata(options.publicUrl())))
    .get(OAUTH_PATHS.stylesheet, () => new Response(stylesheet, { headers: { "content-type": "text/css; charset=utf-8", "cache-control": "no-cache", "x-content-type-options": "nosniff" } }))
    .all(OAUTH_PATHS.register, ({ request }) => register(request), { parse: "none" })
    .all(OAUTH_PATHS.token, ({ request }) => token(request), { parse: "none" })
    .all(OAUTH_PATHS.revoke, ({ request }) => revoke(request), { parse: "none" })
    .all(OAUTH_PATHS.authorize, ({ request }) => authorize(request), { parse: "none" });
}
