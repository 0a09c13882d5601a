import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./auth";

/**
 * Public read-only links to one note. The token is kept as it is (the owner's list shows each
 * link's URL again); revoking deletes the row. `note_id` is not a foreign key: a note in the trash
 * keeps its links (they answer 404 while it is there, and work again if it is restored).
 */
export const shareLinks = sqliteTable(
  "share_links",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    noteId: integer("note_id").notNull(),
    /** At least 128 random bits, base64url; the last path segment of `/s/<token>`. */
    token: text("token").notNull().unique(),
    createdAt: integer("created_at").notNull(),
    /** Null: the link never expires. */
    expiresAt: integer("expires_at"),
  },
  (table) => [index("share_links_user_note_idx").on(table.userId, table.noteId)],
);
