import { eq } from "drizzle-orm";
import { encodeBase64urlNoPadding } from "@oslojs/encoding";
import type { Database } from "../db/client";
import { oauthClients } from "../db/schema";
import { assertNotThrottled, recordFailure, REGISTRATION_PER_ADDRESS, throttleKeys } from "../modules/auth/throttle";
import { TooManyRequestsError } from "../modules/errors";
import { ImportError } from "../modules/imports/import-error";
import type { Fetcher } from "../modules/imports/platforms/types";
import { type ResolveOverrides, resolverWith } from "../modules/imports/resolve-overrides";
import { createSafeFetcher } from "../modules/imports/safe-fetch/fetch-page";
import { OAuthError } from "./oauth-error";
import { MAX_REDIRECT_URIS, redirectUriProblem } from "./redirect-uris";

/** A client the authorization page can trust to the extent of its redirect URIs. */
export interface OAuthClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
}

const MAX_CLIENT_NAME = 100;
const GRANT_TYPES = ["authorization_code", "refresh_token"];

/** Control characters out, whitespace folded, cut: a name shown on the consent page. */
function cleanName(name: unknown): string | null {
  if (typeof name !== "string") return null;
  const cleaned = name.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ").replace(/\s+/g, " ").trim().slice(0, MAX_CLIENT_NAME);
  return cleaned || null;
}

function checkedRedirectUris(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every((uri) => typeof uri === "string")) {
    throw new OAuthError("invalid_redirect_uri", "`redirect_uris` must be a non-empty array of URLs");
  }
  if (value.length > MAX_REDIRECT_URIS) throw new OAuthError("invalid_redirect_uri", `At most ${MAX_REDIRECT_URIS} redirect URIs may be registered`);
  for (const uri of value as string[]) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError("invalid_redirect_uri", `The redirect URI ${JSON.stringify(uri.slice(0, 200))} ${problem}`);
  }
  return [...new Set(value as string[])];
}

/**
 * RFC 7591 dynamic registration of a public client (no secret: PKCE protects its codes). Values the
 * server does not support are replaced by the ones it does, as section 3.2.1 allows, and the answer
 * says which were registered. Every registration counts toward 20 an hour per client address.
 */
export async function registerClient({ db, clientAddress, body, now = Date.now() }: { db: Database; clientAddress: string; body: unknown; now?: number }) {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new OAuthError("invalid_client_metadata", "The body must be a JSON object of client metadata (RFC 7591)");
  }
  const metadata = body as Record<string, unknown>;
  const redirectUris = checkedRedirectUris(metadata.redirect_uris);
  if (metadata.client_name !== undefined && typeof metadata.client_name !== "string") {
    throw new OAuthError("invalid_client_metadata", "`client_name` must be a string");
  }
  for (const field of ["grant_types", "response_types"] as const) {
    const value = metadata[field];
    if (value !== undefined && (!Array.isArray(value) || !value.every((item) => typeof item === "string"))) {
      throw new OAuthError("invalid_client_metadata", `\`${field}\` must be an array of strings`);
    }
  }
  if (Array.isArray(metadata.grant_types) && !metadata.grant_types.includes("authorization_code")) {
    throw new OAuthError("invalid_client_metadata", "This server grants only `authorization_code` (with `refresh_token`); `grant_types` must include it");
  }
  if (Array.isArray(metadata.response_types) && !metadata.response_types.includes("code")) {
    throw new OAuthError("invalid_client_metadata", "This server answers only `response_type=code`; `response_types` must include it");
  }

  const key = throttleKeys.oauthRegistration(clientAddress);
  try {
    await assertNotThrottled(db, [key], "Too many client registrations from this address; try again later", now);
  } catch (error) {
    if (error instanceof TooManyRequestsError) {
      throw new OAuthError("too_many_requests", error.message, 429, { "Retry-After": String(error.retryAfterSeconds) });
    }
    throw error;
  }
  await recordFailure(db, key, REGISTRATION_PER_ADDRESS, now);

  const clientId = `rhzc_${encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(18)))}`;
  const clientName = cleanName(metadata.client_name) ?? `Client at ${new URL(redirectUris[0]!).host}`;
  await db.insert(oauthClients).values({ clientId, clientName, redirectUris: JSON.stringify(redirectUris), createdAt: now });
  return {
    client_id: clientId,
    client_id_issued_at: Math.floor(now / 1000),
    client_name: clientName,
    redirect_uris: redirectUris,
    grant_types: GRANT_TYPES,
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

/** A request the page cannot trust enough to redirect: shown on the authorization page (status 400), never sent to a redirect URI. */
export class PageError extends Error {}

/** A client metadata document's URL: https with a path (draft-ietf-oauth-client-id-metadata-document). */
export function isMetadataDocumentUrl(clientId: string): boolean {
  if (!clientId.startsWith("https://") || !URL.canParse(clientId)) return false;
  const url = new URL(clientId);
  return url.pathname !== "/" && !url.hash && !url.username && !url.password;
}

/**
 * The client behind a `client_id`: a registered one, or the metadata document at an https URL,
 * fetched under the import address rules (a private address is refused before any connection).
 */
export async function findClient({ db, fetchDocument, clientId }: { db: Database; fetchDocument: Fetcher; clientId: string }): Promise<OAuthClient> {
  if (isMetadataDocumentUrl(clientId)) return fetchMetadataDocument(fetchDocument, clientId);
  if (clientId.startsWith("http")) throw new PageError(`The client id ${JSON.stringify(clientId.slice(0, 200))} is not a client metadata document URL (https, with a path)`);
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId));
  if (!row) throw new PageError("This application is not registered with this server (unknown client_id). Ask it to register again.");
  return { clientId: row.clientId, clientName: row.clientName, redirectUris: JSON.parse(row.redirectUris) as string[] };
}

async function fetchMetadataDocument(fetchDocument: Fetcher, clientId: string): Promise<OAuthClient> {
  const where = `The client's metadata document at ${clientId.slice(0, 200)}`;
  let page;
  try {
    page = await fetchDocument(clientId, { headers: { accept: "application/json" } });
  } catch (error) {
    if (error instanceof ImportError) throw new PageError(`${where} could not be fetched: ${error.message}`);
    throw new PageError(`${where} could not be fetched`);
  }
  if (page.status !== 200) throw new PageError(`${where} could not be fetched: the server answered ${page.status}`);
  let document: Record<string, unknown>;
  try {
    document = JSON.parse(page.body) as Record<string, unknown>;
  } catch {
    throw new PageError(`${where} is not JSON`);
  }
  if (typeof document !== "object" || document === null || Array.isArray(document)) throw new PageError(`${where} is not a JSON object`);
  if (document.client_id !== clientId) throw new PageError(`${where} names a different client_id`);
  let redirectUris: string[];
  try {
    redirectUris = checkedRedirectUris(document.redirect_uris);
  } catch (error) {
    throw new PageError(`${where} has unusable redirect URIs: ${(error as OAuthError).description}`);
  }
  return { clientId, clientName: cleanName(document.client_name) ?? new URL(clientId).host, redirectUris };
}

/** How client metadata documents are fetched: the import rules (IMPORT_ALLOW_PRIVATE_NETWORKS, IMPORT_RESOLVE), small and quick. */
export function clientMetadataFetcher(rules: { allowPrivateNetworks: boolean; resolveOverrides?: ResolveOverrides }): Fetcher {
  return createSafeFetcher({
    allowPrivateNetworks: rules.allowPrivateNetworks,
    ...(rules.resolveOverrides?.size ? { resolve: resolverWith(rules.resolveOverrides) } : {}),
    timeoutMs: 5_000,
    maxBodyBytes: 64 * 1024,
    maxRedirects: 0,
    allowedContentTypes: ["application/json", "text/json", "text/plain"],
  });
}
