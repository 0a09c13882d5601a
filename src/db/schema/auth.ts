import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const users = sqliteTable("users", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  username: text("username").notNull(),
  /** Lower-cased username: usernames are unique case-insensitively. */
  usernameKey: text("username_key").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  /** AES-GCM sealed base32 secret; set by setup, live once `totpEnabled`. */
  totpSecret: text("totp_secret"),
  totpEnabled: integer("totp_enabled", { mode: "boolean" }).notNull().default(false),
  /** The last accepted TOTP time step: a code is accepted once, and never an older one. */
  totpLastStep: integer("totp_last_step"),
  createdAt: integer("created_at").notNull(),
});

export const sessions = sqliteTable(
  "sessions",
  {
    /** The session's id in the API (`/api/auth/sessions/{id}`): a positive integer, never reused. */
    publicId: integer("public_id").primaryKey({ autoIncrement: true }),
    /** SHA-256 of the bearer token, hex: the token itself is never stored. How a request finds its session. */
    id: text("id").notNull().unique(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: integer("expires_at").notNull(),
    /** Issued by a password login of a TOTP user; only accepted by /api/auth/totp/verify. */
    pendingTotp: integer("pending_totp", { mode: "boolean" }).notNull().default(false),
    failedTotpAttempts: integer("failed_totp_attempts").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    /** Written at most once a minute per session (no write per request); null for sessions made before it was kept. */
    lastUsedAt: integer("last_used_at"),
    /** The User-Agent of the login that made it, cut to 256 characters; null when the client sent none. */
    userAgent: text("user_agent"),
  },
  (table) => [index("sessions_user_id_idx").on(table.userId)],
);

export const recoveryCodes = sqliteTable(
  "recovery_codes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    usedAt: integer("used_at"),
  },
  (table) => [index("recovery_codes_user_id_idx").on(table.userId)],
);

/** Failure counters for login and second-factor throttling, shared by every API process. */
export const throttles = sqliteTable("throttles", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull().default(0),
  windowStartedAt: integer("window_started_at").notNull(),
  blockedUntil: integer("blocked_until").notNull().default(0),
});

