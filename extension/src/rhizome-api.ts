import { refreshGrant } from "./oauth";
import { type Connection, type GrantedToken, loadConnection, saveConnection } from "./settings";

/** A refresh this long before the access token's end, so a save never starts with a token about to lapse. */
const REFRESH_MARGIN_MS = 60_000;

export class NotConnectedError extends Error {
  constructor() {
    super("Rhizome is not set up: open the extension's options, give the server address, then Connect (or paste an access token and Save)");
  }
}

// One refresh at a time: refresh tokens rotate, and a spent one sent again revokes the whole grant.
let refreshing: Promise<Connection> | null = null;

function refreshed(connection: Connection & { token: GrantedToken }): Promise<Connection> {
  refreshing ??= (async () => {
    try {
      // Another refresh may have stored a newer token since this one was read.
      const current = await loadConnection();
      if (current && current.token.kind === "oauth" && current.token.refreshToken !== connection.token.refreshToken) return current;
      const next = { server: connection.server, token: await refreshGrant(connection.token) };
      await saveConnection(next);
      return next;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`The extension's access to Rhizome has ended (${reason}): open its options and Connect again`);
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

async function currentConnection(): Promise<Connection> {
  if (refreshing) return refreshing;
  const connection = await loadConnection();
  if (!connection) throw new NotConnectedError();
  if (connection.token.kind === "oauth" && Date.now() >= connection.token.expiresAt - REFRESH_MARGIN_MS) {
    return refreshed(connection as Connection & { token: GrantedToken });
  }
  return connection;
}

export type RequestBody = { json: unknown } | { bytes: Blob };

/**
 * Calls the server's REST API with the stored token (refreshed first when it is about to end, and
 * once more on a 401) and returns the JSON answer; an error answer throws its `message`.
 */
export async function callApi<T>(method: string, path: string, body?: RequestBody): Promise<T> {
  let connection = await currentConnection();
  let response = await send(connection, method, path, body);
  if (response.status === 401 && connection.token.kind === "oauth") {
    connection = await refreshed(connection as Connection & { token: GrantedToken });
    response = await send(connection, method, path, body);
  }
  const answer = (await response.json().catch(() => null)) as { message?: string } | null;
  if (!response.ok) {
    if (response.status === 401) throw new Error(`Rhizome refused the extension's token (${answer?.message ?? "401"}): open its options and Connect again, or paste a new token`);
    throw new Error(answer?.message ?? `Rhizome answered ${response.status}`);
  }
  return answer as T;
}

async function send(connection: Connection, method: string, path: string, body?: RequestBody): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${connection.token.accessToken}`, accept: "application/json" };
  let payload: BodyInit | undefined;
  if (body && "json" in body) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(body.json);
  } else if (body) {
    headers["content-type"] = body.bytes.type || "application/octet-stream";
    payload = body.bytes;
  }
  try {
    return await fetch(`${connection.server}${path}`, { method, headers, body: payload });
  } catch (error) {
    throw new Error(`Could not reach Rhizome at ${connection.server}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The server the extension saves to, for links to its notes. */
export async function serverAddress(): Promise<string> {
  const connection = await loadConnection();
  if (!connection) throw new NotConnectedError();
  return connection.server;
}
