import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./auth";
import { accessTokens } from "./tokens";

/**
 * The authorization server for connectors (OAuth 2.1). A grant is an `access_tokens` row of kind
 * `connector` (or `clipper`, for the REST API) (so it is listed and revoked with the access tokens); what OAuth adds hangs off that
 * row and goes with it: revoking the token deletes the grant and its refresh tokens.
 */

/** Clients registered dynamically (RFC 7591); clients identified by a metadata document URL are not stored. */
export const oauthClients = sqliteTable("oauth_clients", {
  clientId: text("client_id").primaryKey(),
  clientName: text("client_name").notNull(),
  /** JSON array of redirect URIs, each `https://…` or a loopback `http://` one. */
  redirectUris: text("redirect_uris").notNull(),
  createdAt: integer("created_at").notNull(),
});

/** One row per grant: the OAuth side of a connector's `access_tokens` row. */
export const oauthGrants = sqliteTable("oauth_grants", {
  tokenId: integer("token_id")
    .primaryKey()
    .references(() => accessTokens.id, { onDelete: "cascade" }),
  clientId: text("client_id").notNull(),
  /** The current access token's end (1 h); the row's own `expires_at` is the grant's (the refresh token's). */
  accessExpiresAt: integer("access_expires_at").notNull(),
  /** The resource indicator the grant is for (`<PUBLIC_URL>/mcp`, or `<PUBLIC_URL>/api` for a clipper), when the client named one. */
  resource: text("resource"),
});

/** Refresh tokens by SHA-256; a used one stays (with `used_at`) so a second use is seen and revokes the grant. */
export const oauthRefreshTokens = sqliteTable(
  "oauth_refresh_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    grantTokenId: integer("grant_token_id")
      .notNull()
      .references(() => accessTokens.id, { onDelete: "cascade" }),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
  },
  (table) => [index("oauth_refresh_tokens_grant_idx").on(table.grantTokenId)],
);

/** Authorization codes by SHA-256: single-use, 60 s. A used one stays until swept so a replay revokes what it issued. */
export const oauthCodes = sqliteTable("oauth_codes", {
  codeHash: text("code_hash").primaryKey(),
  clientId: text("client_id").notNull(),
  clientName: text("client_name").notNull(),
  userId: integer("user_id")
    .notNull()
    .references(() => users.id, { onDelete: "cascade" }),
  redirectUri: text("redirect_uri").notNull(),
  codeChallenge: text("code_challenge").notNull(),
  /** JSON array of the scopes the person allowed. */
  scopes: text("scopes").notNull(),
  resource: text("resource"),
  expiresAt: integer("expires_at").notNull(),
  usedAt: integer("used_at"),
  /** The grant the code was exchanged for (revoked if the code comes back). */
  grantTokenId: integer("grant_token_id"),
});

/**
 * A person's login on the authorization page (a cookie holds the secret; the row its SHA-256):
 * 10 minutes, `pending_totp` until the second factor is given. The consent form's CSRF token is bound to it.
 */
export const oauthLogins = sqliteTable("oauth_logins", {
  idHash: text("id_hash").primaryKey(),
  userId: integer("user_id")
    .notNull()
    .references(() => users.id, { onDelete: "cascade" }),
  csrfToken: text("csrf_token").notNull(),
  pendingTotp: integer("pending_totp", { mode: "boolean" }).notNull(),
  expiresAt: integer("expires_at").notNull(),
});
