/**
 * An OAuth error (RFC 6749 section 5.2, RFC 7591 section 3.2.2): the token, registration and
 * revocation endpoints answer with `{error, error_description}`, not the API's error body.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = "OAuthError";
  }
}

export const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

export function oauthErrorResponse(error: OAuthError): Response {
  return Response.json({ error: error.error, error_description: error.description }, { status: error.status, headers: { ...NO_STORE, ...error.headers } });
}
