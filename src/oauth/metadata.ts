import { MCP_PATH, PROTECTED_RESOURCE_METADATA_PATH } from "../mcp/route";
import { SCOPE_NAMES } from "../modules/tokens/scopes";

export const OAUTH_PATHS = {
  protectedResource: PROTECTED_RESOURCE_METADATA_PATH,
  protectedResourceRoot: "/.well-known/oauth-protected-resource",
  authorizationServer: "/.well-known/oauth-authorization-server",
  register: "/oauth/register",
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  revoke: "/oauth/revoke",
  stylesheet: "/oauth/page.css",
} as const;

/** The one resource connectors are granted: this service's MCP endpoint. */
export const mcpResource = (publicUrl: string) => `${publicUrl}${MCP_PATH}`;

/** RFC 9728: what protects /mcp and which scopes it knows. */
export function protectedResourceMetadata(publicUrl: string) {
  return {
    resource: mcpResource(publicUrl),
    authorization_servers: [publicUrl],
    scopes_supported: [...SCOPE_NAMES],
    bearer_methods_supported: ["header"],
    resource_name: "Rhizome notes",
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
