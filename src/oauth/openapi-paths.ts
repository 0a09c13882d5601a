import { SCOPE_NAMES } from "../modules/tokens/scopes";
import { OAUTH_PATHS } from "./metadata";

// The connectors' OAuth routes in the OpenAPI document (plain routes, written by hand). Their
// errors are RFC 6749's `{error, error_description}`, not the API's error body.

const tags = ["connectors"];
const oauthError = {
  description: "An OAuth error (RFC 6749 section 5.2)",
  content: {
    "application/json": {
      schema: { type: "object", required: ["error"], properties: { error: { type: "string", example: "invalid_grant" }, error_description: { type: "string" } } },
    },
  },
};
const html = (description: string) => ({ description, content: { "text/html": { schema: { type: "string" } } } });
const form = (properties: Record<string, object>, required: string[]) => ({
  required: true,
  content: { "application/x-www-form-urlencoded": { schema: { type: "object", required, properties } } },
});
const text = { type: "string" };
const authorizeParameters = ["response_type", "client_id", "redirect_uri", "code_challenge", "code_challenge_method", "state", "scope", "resource"].map((name) => ({
  name,
  in: "query",
  required: ["response_type", "client_id", "code_challenge", "code_challenge_method"].includes(name),
  schema: name === "code_challenge_method" ? { type: "string", enum: ["S256"] } : name === "response_type" ? { type: "string", enum: ["code"] } : text,
}));

export const oauthOpenApiPaths = {
  [OAUTH_PATHS.protectedResource]: {
    get: {
      operationId: "oauth-protected-resource",
      summary: "Protected resource metadata of /mcp (RFC 9728)",
      description: "What /mcp's 401 points at: the resource (`<PUBLIC_URL>/mcp`), its authorization server (this service) and the scopes.",
      tags,
      security: [],
      responses: { "200": { description: "The metadata", content: { "application/json": { schema: { type: "object" } } } } },
    },
  },
  [OAUTH_PATHS.protectedResourceApi]: {
    get: {
      operationId: "oauth-protected-resource-api",
      summary: "Protected resource metadata of the REST API (RFC 9728)",
      description: "For the browser extension (a clipper): the resource (`<PUBLIC_URL>/api`), its authorization server (this service) and the scopes.",
      tags,
      security: [],
      responses: { "200": { description: "The metadata", content: { "application/json": { schema: { type: "object" } } } } },
    },
  },
  [OAUTH_PATHS.protectedResourceRoot]: {
    get: {
      operationId: "oauth-protected-resource-root",
      summary: "Protected resource metadata (RFC 9728), at the root",
      tags,
      security: [],
      responses: { "200": { description: "The same metadata as for /mcp", content: { "application/json": { schema: { type: "object" } } } } },
    },
  },
  [OAUTH_PATHS.authorizationServer]: {
    get: {
      operationId: "oauth-authorization-server",
      summary: "Authorization server metadata (RFC 8414)",
      tags,
      security: [],
      responses: { "200": { description: "Endpoints, scopes, PKCE S256, public clients, client metadata documents", content: { "application/json": { schema: { type: "object" } } } } },
    },
  },
  [OAUTH_PATHS.register]: {
    post: {
      operationId: "oauth-register",
      summary: "Register a public client (RFC 7591)",
      description: "Redirect URIs are `https://…` or loopback `http://127.0.0.1|localhost|[::1]:<port>/…`. At most 20 registrations an hour per client address (429).",
      tags,
      security: [],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: { type: "object", required: ["redirect_uris"], properties: { redirect_uris: { type: "array", items: text }, client_name: text, grant_types: { type: "array", items: text }, response_types: { type: "array", items: text }, token_endpoint_auth_method: text } },
          },
        },
      },
      responses: { "201": { description: "The registered client: `client_id` and its metadata", content: { "application/json": { schema: { type: "object" } } } }, "400": oauthError, "429": oauthError },
    },
  },
  [OAUTH_PATHS.authorize]: {
    get: {
      operationId: "oauth-authorize",
      summary: "The authorization page: log in (with TOTP), then consent",
      description: `PKCE S256 is required; \`redirect_uri\` must equal a registered one (loopback: any port); \`resource\`, when given, is \`<PUBLIC_URL>/mcp\` (a connector) or \`<PUBLIC_URL>/api\` (the browser extension, a clipper). Scopes: ${SCOPE_NAMES.join(", ")}. Requests the page cannot trust are answered here with 400; others are redirected with \`error\`.`,
      tags,
      security: [],
      parameters: authorizeParameters,
      responses: { "200": html("The login or consent page"), "303": { description: "An error redirected to the client" }, "400": html("A request shown as refused, never redirected") },
    },
    post: {
      operationId: "oauth-authorize-form",
      summary: "The page's forms: login, second factor, consent (Allow or Deny)",
      tags,
      security: [],
      requestBody: form({ step: { type: "string", enum: ["login", "verify", "consent"] }, username: text, password: text, code: text, csrf_token: text, allow_scope: text, decision: { type: "string", enum: ["allow", "deny"] } }, ["step"]),
      responses: { "200": html("The next step"), "303": { description: "Back to the client with `code` or `error=access_denied`" }, "400": html("A refused request"), "401": html("Wrong credentials"), "403": html("A missing or wrong CSRF token (every step, the login included: its token is bound to a cookie set with the login page), or a form sent from another origin (`Origin: null` included)"), "429": html("Throttled") },
    },
  },
  [OAUTH_PATHS.token]: {
    post: {
      operationId: "oauth-token",
      summary: "Trade a code or a refresh token for tokens",
      description: "`authorization_code` (single-use, 60 s; `code_verifier` and `redirect_uri` must match) or `refresh_token` (rotated on each use, 90 days; a reused one revokes the grant). Access tokens live an hour and work only on the resource granted: at /mcp (a connector, resource `<PUBLIC_URL>/mcp` or none) or on the REST API and /trpc (a clipper, resource `<PUBLIC_URL>/api`).",
      tags,
      security: [],
      requestBody: form({ grant_type: { type: "string", enum: ["authorization_code", "refresh_token"] }, client_id: text, code: text, code_verifier: text, redirect_uri: text, refresh_token: text, resource: text, scope: text }, ["grant_type"]),
      responses: {
        "200": {
          description: "Tokens",
          content: {
            "application/json": {
              schema: { type: "object", required: ["access_token", "token_type", "expires_in", "refresh_token", "scope"], properties: { access_token: text, token_type: { type: "string", enum: ["Bearer"] }, expires_in: { type: "integer" }, refresh_token: text, scope: text } },
            },
          },
        },
        "400": oauthError,
        "401": { ...oauthError, description: "`invalid_client`: malformed HTTP Basic credentials (RFC 6749 section 5.2)" },
      },
    },
  },
  [OAUTH_PATHS.revoke]: {
    post: {
      operationId: "oauth-revoke",
      summary: "Revoke a connector's or clipper's access or refresh token, and with it the grant (RFC 7009)",
      tags,
      security: [],
      requestBody: form({ token: text, token_type_hint: text, client_id: text }, ["token"]),
      responses: { "200": { description: "Revoked (or unknown: the answer is the same)" }, "400": oauthError },
    },
  },
};
