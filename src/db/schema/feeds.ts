import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./auth";

/**
 * A user's subscription to a feed (RSS, Atom, JSON Feed) or a Bilibili space; fetched by a worker
 * job when `next_fetch_at` comes. Two users of one feed have a row each, and their own notes.
 */
export const feeds = sqliteTable(
  "feeds",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The feed's address (after discovery, and after a permanent redirect). */
    url: text("url").notNull(),
    title: text("title"),
    siteUrl: text("site_url"),
    kind: text("kind", { enum: ["rss", "atom", "json", "bilibili"] }).notNull(),
    /** JSON array: tags every note from this feed gets, besides `feed`. */
    tags: text("tags").notNull().default("[]"),
    intervalMinutes: integer("interval_minutes").notNull().default(60),
    backfill: integer("backfill").notNull().default(5),
    paused: integer("paused", { mode: "boolean" }).notNull().default(false),
    /** The validators of the last full answer, sent back as If-None-Match / If-Modified-Since. */
    etag: text("etag"),
    lastModified: text("last_modified"),
    lastFetchedAt: integer("last_fetched_at"),
    nextFetchAt: integer("next_fetch_at").notNull(),
    lastError: text("last_error"),
    /** When the first of an unbroken run of failed fetches happened; null after a success. */
    failingSince: integer("failing_since"),
    /** Failed fetches in a row: the backoff doubles with each. */
    failures: integer("failures").notNull().default(0),
    /** False until the first fetch has read the feed: that one imports only the newest `backfill` items. */
    backfilled: integer("backfilled", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [
    uniqueIndex("feeds_user_url_idx").on(table.userId, table.url),
    index("feeds_due_idx").on(table.paused, table.nextFetchAt),
  ],
);

/**
 * Every item a feed has shown, by its id in the feed, so an item is imported once. `task_id` is
 * the import task it became (its status, and its note, are the task's); no foreign key, as the
 * tasks table refers to feeds.
 */
export const feedItems = sqliteTable(
  "feed_items",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    feedId: integer("feed_id")
      .notNull()
      .references(() => feeds.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    guid: text("guid").notNull(),
    title: text("title"),
    url: text("url"),
    publishedAt: integer("published_at"),
    /** `published_at`, else when it was first seen: the list's newest-first order. */
    sortAt: integer("sort_at").notNull(),
    /** `new` (its task not made yet), `queued` (its task is `task_id`) or `skipped` (passed over by the backfill). */
    state: text("state", { enum: ["new", "queued", "skipped"] }).notNull(),
    taskId: integer("task_id"),
    /** What the item carried, to make its task from (JSON); cleared once the task exists. */
    pending: text("pending"),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [
    uniqueIndex("feed_items_feed_guid_idx").on(table.feedId, table.guid),
    index("feed_items_feed_sort_idx").on(table.feedId, sql`${table.sortAt} desc`, sql`${table.id} desc`),
    index("feed_items_task_idx").on(table.taskId),
  ],
);
