import { ext } from "./browser-api";
import { type GrantedToken, loadConnection, normaliseServer, saveConnection } from "./settings";

// Connecting: OAuth 2.1 authorization code with PKCE (S256) against the server's own authorization
// server, as a public client registered on the spot (RFC 7591) whose redirect URI is the browser's
// extension redirect. The grant is for the resource `<server>/api` (RFC 8707), found through the
// REST API's protected resource metadata (RFC 9728).

export const CLIENT_NAME = "Rhizome browser extension";
export const SCOPES = ["imports", "notes:read", "notes:write"];

interface ServerMetadata {
  issuer: string;
  resource: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  registrationEndpoint: string;
  revocationEndpoint: string | null;
}

interface TokenAnswer {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

async function getJson(url: string, what: string): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: "application/json" } });
  } catch (error) {
    throw new Error(`Could not reach ${new URL(url).origin}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!response.ok) throw new Error(`${new URL(url).origin} answered ${response.status} for ${what}: is it a Rhizome server?`);
  return (await response.json()) as Record<string, unknown>;
}

const text = (value: unknown, name: string): string => {
  if (typeof value !== "string" || value === "") throw new Error(`The server's OAuth metadata has no ${name}`);
  return value;
};

/** Where to register, send the person and trade codes: the API's resource metadata, then its authorization server's. */
export async function discover(server: string): Promise<ServerMetadata> {
  const protectedResource = await getJson(`${server}/.well-known/oauth-protected-resource/api`, "the REST API's OAuth metadata");
  const resource = text(protectedResource.resource, "resource");
  const servers = protectedResource.authorization_servers;
  const issuer = Array.isArray(servers) && typeof servers[0] === "string" ? servers[0] : server;
  const metadata = await getJson(`${issuer}/.well-known/oauth-authorization-server`, "its authorization server's metadata");
  return {
    issuer: text(metadata.issuer, "issuer"),
    resource,
    authorizationEndpoint: text(metadata.authorization_endpoint, "authorization_endpoint"),
    tokenEndpoint: text(metadata.token_endpoint, "token_endpoint"),
    registrationEndpoint: text(metadata.registration_endpoint, "registration_endpoint"),
    revocationEndpoint: typeof metadata.revocation_endpoint === "string" ? metadata.revocation_endpoint : null,
  };
}

const base64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  return { verifier, challenge };
}

async function postToken(endpoint: string, fields: Record<string, string>): Promise<TokenAnswer> {
  const response = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields) });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    const error = Object.assign(new Error(String(body.error_description ?? body.error ?? `The token endpoint answered ${response.status}`)), { oauthError: body.error });
    throw error;
  }
  return body as unknown as TokenAnswer;
}

const grantFrom = (answer: TokenAnswer, clientId: string, where: Pick<GrantedToken, "tokenEndpoint" | "revocationEndpoint" | "resource">): GrantedToken => ({
  kind: "oauth",
  clientId,
  accessToken: answer.access_token,
  refreshToken: answer.refresh_token,
  expiresAt: Date.now() + answer.expires_in * 1000,
  tokenEndpoint: where.tokenEndpoint,
  revocationEndpoint: where.revocationEndpoint,
  resource: where.resource,
});

/**
 * Runs the whole authorization: registers the extension with the server, sends the person to its
 * authorization page in the browser's sign-in window, and trades the code for tokens, kept in the
 * extension's storage. A grant made before is revoked once the new one is in place.
 */
export async function connect(serverInput: string): Promise<void> {
  const server = normaliseServer(serverInput);
  const metadata = await discover(server);
  const redirectUri = ext.identity.getRedirectURL();
  const registration = await fetch(metadata.registrationEndpoint, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: CLIENT_NAME,
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    }),
  });
  const client = (await registration.json().catch(() => ({}))) as Record<string, unknown>;
  if (registration.status !== 201 || typeof client.client_id !== "string") {
    throw new Error(`The server refused to register the extension: ${String(client.error_description ?? client.error ?? registration.status)}`);
  }
  const clientId = client.client_id;
  const { verifier, challenge } = await pkcePair();
  const state = base64url(crypto.getRandomValues(new Uint8Array(16)));
  const authorizeUrl = new URL(metadata.authorizationEndpoint);
  for (const [name, value] of Object.entries({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state,
    scope: SCOPES.join(" "),
    resource: metadata.resource,
  })) {
    authorizeUrl.searchParams.set(name, value);
  }

  const landed = await ext.identity.launchWebAuthFlow({ url: authorizeUrl.href, interactive: true });
  if (!landed) throw new Error("The sign-in window closed before the server answered");
  const answer = new URL(landed).searchParams;
  if (answer.get("state") !== state) throw new Error("The server's answer does not belong to this sign-in (its state differs); try again");
  // RFC 9207: the answer must come from the authorization server we sent the person to.
  const iss = answer.get("iss");
  if (iss !== null && iss !== metadata.issuer) throw new Error(`The answer came from ${iss}, not ${metadata.issuer}`);
  const error = answer.get("error");
  if (error) throw new Error(error === "access_denied" ? "Access was denied on the server's page" : `The server refused: ${answer.get("error_description") ?? error}`);
  const code = answer.get("code");
  if (!code) throw new Error("The server's answer carries no authorization code");

  const tokens = await postToken(metadata.tokenEndpoint, {
    grant_type: "authorization_code",
    code,
    redirect_uri: redirectUri,
    client_id: clientId,
    code_verifier: verifier,
    resource: metadata.resource,
  });
  const previous = await loadConnection();
  await saveConnection({ server, token: grantFrom(tokens, clientId, metadata) });
  if (previous?.token.kind === "oauth") await revokeGrant(previous.token);
}

/** Best effort (RFC 7009): the old grant's refresh token ends it, so it leaves the server's list of tokens. */
export async function revokeGrant(token: GrantedToken): Promise<void> {
  if (!token.revocationEndpoint) return;
  await fetch(token.revocationEndpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: token.refreshToken, client_id: token.clientId }),
  }).catch(() => undefined);
}

/** A new access token for the grant; the refresh token rotates (the old one is spent by this call). */
export async function refreshGrant(token: GrantedToken): Promise<GrantedToken> {
  const answer = await postToken(token.tokenEndpoint, { grant_type: "refresh_token", refresh_token: token.refreshToken, client_id: token.clientId, resource: token.resource });
  return grantFrom(answer, token.clientId, token);
}
