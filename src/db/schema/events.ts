import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { sessions, users } from "./auth";

/**
 * Single-use, 60-second tickets that let a browser's `EventSource` (which cannot send headers) open
 * GET /api/events. Only the SHA-256 is kept; logging out (deleting the session) revokes them.
 */
export const eventTickets = sqliteTable(
  "event_tickets",
  {
    /** SHA-256 of the ticket, hex. */
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    expiresAt: integer("expires_at").notNull(),
  },
  (table) => [index("event_tickets_expires_idx").on(table.expiresAt)],
);
