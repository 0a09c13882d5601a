import { ext } from "./browser-api";

/** A token pasted on the options page (a personal access token, `rhz_…`): used as it is until revoked. */
export interface PastedToken {
  kind: "pasted";
  accessToken: string;
}

/** What the OAuth grant (a clipper's, for `<server>/api`) left: an hour's access token and the refresh token that renews it. */
export interface GrantedToken {
  kind: "oauth";
  clientId: string;
  accessToken: string;
  refreshToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  tokenEndpoint: string;
  revocationEndpoint: string | null;
  resource: string;
}

export type StoredToken = PastedToken | GrantedToken;

export interface Connection {
  server: string;
  token: StoredToken;
}

const KEYS = ["server", "token"];

/** The server's address as the person typed it, reduced to `scheme://host[:port][/path]` without a trailing slash. */
export function normaliseServer(input: string): string {
  const trimmed = input.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error(`"${input}" is not a web address; write the address you open Rhizome at, e.g. https://notes.example.com`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error("The server address must start with https:// (or http:// on your own network)");
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

export async function loadServer(): Promise<string | null> {
  const stored = await ext.storage.local.get(KEYS);
  return typeof stored.server === "string" ? stored.server : null;
}

/** The server and token, or null while the extension is not set up. */
export async function loadConnection(): Promise<Connection | null> {
  const stored = await ext.storage.local.get(KEYS);
  if (typeof stored.server !== "string" || !stored.token || typeof stored.token !== "object") return null;
  return { server: stored.server, token: stored.token as StoredToken };
}

export async function saveConnection(connection: Connection): Promise<void> {
  await ext.storage.local.set({ server: connection.server, token: connection.token });
}

export async function saveServer(server: string): Promise<void> {
  await ext.storage.local.set({ server });
}
