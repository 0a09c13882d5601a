import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./auth";

/**
 * Credentials for programs (scripts, clippers, agents): each holds a subset of the scopes. Only
 * the SHA-256 of the token is kept; revoking deletes the row, so every API process sees it at once.
 */
export const accessTokens = sqliteTable(
  "access_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** SHA-256 of the whole token (`rhz_…`), hex. */
    tokenHash: text("token_hash").notNull().unique(),
    name: text("name").notNull(),
    /** JSON array of scope names. */
    scopes: text("scopes").notNull(),
    /** The first 8 characters after `rhz_`, kept so a person can recognise the token in a list. */
    prefix: text("prefix").notNull(),
    /** `personal` (made by the user), `connector` (granted to an OAuth client for /mcp) or `clipper` (granted to the browser extension for /api). */
    kind: text("kind", { enum: ["personal", "connector", "clipper"] }).notNull().default("personal"),
    clientName: text("client_name"),
    createdAt: integer("created_at").notNull(),
    /** Null: never expires. */
    expiresAt: integer("expires_at"),
    /** Written at most once a minute per token. */
    lastUsedAt: integer("last_used_at"),
  },
  (table) => [index("access_tokens_user_id_idx").on(table.userId)],
);
