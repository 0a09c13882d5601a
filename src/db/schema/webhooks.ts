import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./auth";

/** A user's subscription: which change events are POSTed, signed, to which URL. */
export const webhooks = sqliteTable(
  "webhooks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    /** JSON array of event types. */
    events: text("events").notNull(),
    description: text("description"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    /** `whsec_` + base64 of 32 random bytes; shown once, kept to sign deliveries (never logged or recorded with one). */
    secret: text("secret").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** When the first of an unbroken run of failed attempts happened; null after any success. */
    failingSince: integer("failing_since"),
    /** Why the service disabled it (3 days of failures); null when enabled or disabled by its owner. */
    disabledReason: text("disabled_reason"),
    /**
     * The access token that created or last changed it, whose scopes its events were checked
     * against; null for a login session. No foreign key: once that token is gone the id stays, and
     * the next delivery turns the webhook off (modules/webhooks/deliver.ts).
     */
    tokenId: integer("token_id"),
  },
  (table) => [index("webhooks_user_id_idx").on(table.userId)],
);

/** One row per delivery attempt, newest last; kept with their webhook. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    webhookId: integer("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    /** The `webhook-id` header: the same on every attempt of one event. */
    eventId: text("event_id").notNull(),
    type: text("type").notNull(),
    attempt: integer("attempt").notNull(),
    /** Null when there was no answer (refused, timed out, blocked). */
    statusCode: integer("status_code"),
    durationMs: integer("duration_ms").notNull(),
    error: text("error"),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("webhook_deliveries_webhook_idx").on(table.webhookId, table.id)],
);

/**
 * Webhook events the job queue did not take when they happened (its Postgres down): kept here by
 * the outlet (modules/webhooks/outlet.ts), moved to the queue in batches by the relay
 * (modules/webhooks/outbox-relay.ts) once it answers, and deleted. A row claimed by a relay that died is
 * claimed again after a minute, so none is lost.
 */
export const webhookOutbox = sqliteTable("webhook_outbox", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  webhookId: integer("webhook_id")
    .notNull()
    .references(() => webhooks.id, { onDelete: "cascade" }),
  userId: integer("user_id").notNull(),
  eventId: text("event_id").notNull(),
  type: text("type").notNull(),
  /** ISO time of the event. */
  timestamp: text("timestamp").notNull(),
  /** JSON object: the event's `data`. */
  data: text("data").notNull(),
  /** When a relay took it; null while it waits. */
  claimedAt: integer("claimed_at"),
});
