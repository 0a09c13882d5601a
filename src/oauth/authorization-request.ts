import type { Database } from "../db/client";
import type { Fetcher } from "../modules/imports/platforms/types";
import { SCOPE_NAMES, type Scope } from "../modules/tokens/scopes";
import { findClient, type OAuthClient, PageError } from "./clients";
import { apiResource, grantKindFor, mcpResource } from "./metadata";
import { redirectUriMatches } from "./redirect-uris";
import { PKCE_CHALLENGE } from "./secrets";

/** The parameters of an authorization request, carried from the query into each of the page's forms. */
export const REQUEST_PARAMS = ["response_type", "client_id", "redirect_uri", "code_challenge", "code_challenge_method", "state", "scope", "resource"] as const;

export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  codeChallenge: string;
  state: string | null;
  /** What the client asked for, in the service's order; the person may allow fewer. */
  scopes: Scope[];
  resource: string | null;
  /** What the resource makes of the grant: a `connector` (for /mcp) or a `clipper` (for the REST API). */
  grantKind: "connector" | "clipper";
  /** The request's own parameters, for the page's hidden fields. */
  params: [string, string][];
}

/** An error the client may hear about: the redirect URI is trusted by now (RFC 6749 section 4.1.2.1). */
export class RedirectError extends Error {
  constructor(
    readonly redirectUri: string,
    readonly error: string,
    readonly description: string,
    readonly state: string | null,
  ) {
    super(description);
  }
}

const MAX_STATE = 1000;

/**
 * Checks an authorization request in the order that decides who hears of a mistake: the client and
 * its redirect URI, PKCE and the resource first (a `PageError`: shown to the person, never
 * redirected), then what the client may be told through its redirect URI (a `RedirectError`).
 */
export async function checkAuthorizationRequest({
  db,
  fetchDocument,
  publicUrl,
  params,
}: {
  db: Database;
  fetchDocument: Fetcher;
  publicUrl: string;
  params: URLSearchParams;
}): Promise<AuthorizationRequest> {
  for (const name of REQUEST_PARAMS) {
    if (params.getAll(name).length > 1) throw new PageError(`The request repeats the parameter \`${name}\`; an authorization request names each once.`);
  }
  const clientId = params.get("client_id");
  if (!clientId) throw new PageError("The request has no `client_id`: the application that sent you here did not say who it is.");
  const client = await findClient({ db, fetchDocument, clientId });

  let redirectUri = params.get("redirect_uri");
  if (redirectUri === null) {
    if (client.redirectUris.length !== 1) throw new PageError("The request has no `redirect_uri`, and the application registered more than one.");
    redirectUri = client.redirectUris[0]!;
  } else if (!client.redirectUris.some((registered) => redirectUriMatches(registered, redirectUri!))) {
    throw new PageError(`The redirect URI ${redirectUri.slice(0, 300)} is not registered for ${client.clientName}; you are not sent there.`);
  }

  const method = params.get("code_challenge_method");
  const challenge = params.get("code_challenge");
  if (!challenge) throw new PageError("The request has no PKCE `code_challenge`; this server requires PKCE with S256.");
  if (method !== "S256") {
    throw new PageError(`The request's \`code_challenge_method\` is ${method ? JSON.stringify(method.slice(0, 20)) : "missing (plain)"}; this server accepts only S256.`);
  }
  if (!PKCE_CHALLENGE.test(challenge)) throw new PageError("The request's `code_challenge` is not an S256 challenge (43 characters of base64url).");

  const resource = params.get("resource");
  const grantKind = grantKindFor(resource, publicUrl);
  if (grantKind === null) {
    throw new PageError(
      `The request is for the resource ${resource!.slice(0, 300)}, which is not this server's (${mcpResource(publicUrl)} or ${apiResource(publicUrl)}).`,
    );
  }
  const state = params.get("state");
  if (state !== null && state.length > MAX_STATE) throw new PageError(`The request's \`state\` is longer than ${MAX_STATE} characters.`);

  const responseType = params.get("response_type");
  if (responseType !== "code") {
    throw new RedirectError(redirectUri, "unsupported_response_type", "Only response_type=code is supported", state);
  }
  const scopeParam = params.get("scope");
  // Scopes this server does not know (`openid`, `offline_access`…) are left out, as RFC 6749 section 3.3 allows.
  const asked = scopeParam === null ? [...SCOPE_NAMES] : scopeParam.split(" ").filter(Boolean);
  const scopes = SCOPE_NAMES.filter((scope) => asked.includes(scope));
  if (scopes.length === 0) throw new RedirectError(redirectUri, "invalid_scope", `None of the requested scopes is known; this server has ${SCOPE_NAMES.join(", ")}`, state);

  return {
    client,
    redirectUri,
    codeChallenge: challenge,
    state,
    scopes,
    resource,
    grantKind,
    params: REQUEST_PARAMS.flatMap((name) => (params.has(name) ? [[name, params.get(name)!] as [string, string]] : [])),
  };
}

/** The client's redirect URI with the answer added to its query (and `iss`, RFC 9207). */
export function redirectTo(redirectUri: string, fields: Record<string, string | null>, issuer: string): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(fields)) if (value !== null) url.searchParams.set(name, value);
  url.searchParams.set("iss", issuer);
  return url.href;
}
