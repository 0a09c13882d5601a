import { REST_PREFIX } from "../http/procedure-meta";
import { MCP_PATH, PROTECTED_RESOURCE_METADATA_PATH } from "../mcp/route";
import { SCOPE_NAMES } from "../modules/tokens/scopes";

export const OAUTH_PATHS = {
  protectedResource: PROTECTED_RESOURCE_METADATA_PATH,
  protectedResourceRoot: "/.well-known/oauth-protected-resource",
  protectedResourceApi: `/.well-known/oauth-protected-resource${REST_PREFIX}`,
  authorizationServer: "/.well-known/oauth-authorization-server",
  register: "/oauth/register",
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  revoke: "/oauth/revoke",
  stylesheet: "/oauth/page.css",
} as const;

/** The resource connectors are granted: this service's MCP endpoint. */
export const mcpResource = (publicUrl: string) => `${publicUrl}${MCP_PATH}`;
/** The resource the browser extension (a clipper) is granted: this service's REST API. */
export const apiResource = (publicUrl: string) => `${publicUrl}${REST_PREFIX}`;

/**
 * The kind of grant a resource makes: a token for the REST API is a `clipper`'s, one for /mcp (or
 * for no named resource) a `connector`'s; null for a resource this server does not protect.
 */
export function grantKindFor(resource: string | null, publicUrl: string): "connector" | "clipper" | null {
  if (resource === null || resource === mcpResource(publicUrl)) return "connector";
  if (resource === apiResource(publicUrl)) return "clipper";
  return null;
}

/** RFC 9728: what protects /mcp (or, for `api`, the REST API) and which scopes it knows. */
export function protectedResourceMetadata(publicUrl: string, resource: "mcp" | "api" = "mcp") {
  return {
    resource: resource === "api" ? apiResource(publicUrl) : mcpResource(publicUrl),
    authorization_servers: [publicUrl],
    scopes_supported: [...SCOPE_NAMES],
    bearer_methods_supported: ["header"],
    resource_name: resource === "api" ? "Rhizome notes API" : "Rhizome notes",
  };
}

/** RFC 8414: where a client registers, sends the person, and trades codes for tokens. */
export function authorizationServerMetadata(publicUrl: string) {
  return {
    issuer: publicUrl,
    authorization_endpoint: publicUrl + OAUTH_PATHS.authorize,
    token_endpoint: publicUrl + OAUTH_PATHS.token,
    registration_endpoint: publicUrl + OAUTH_PATHS.register,
    revocation_endpoint: publicUrl + OAUTH_PATHS.revoke,
    scopes_supported: [...SCOPE_NAMES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}
