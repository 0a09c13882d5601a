import { z } from "zod";
import { noteIdSchema, pageEnvelope, pageQuery, tagsSchema } from "../notes/schemas";

export const MAX_FEEDS_PER_USER = 500;
export const DEFAULT_INTERVAL_MINUTES = 60;
export const DEFAULT_BACKFILL = 5;
/** OPML bodies, on /api and /trpc alike (CONTRACT "Errors"). */
export const OPML_BODY_LIMIT = 2 * 1024 * 1024;
export const OPML_CONTENT_TYPES = ["text/x-opml", "application/xml", "text/xml"] as const;

export const feedIdSchema = noteIdSchema;
export const feedIdInput = z.object({ id: feedIdSchema });

const urlSchema = z
  .url({ protocol: /^https?$/, error: "Must be an http or https URL" })
  .max(2048)
  .describe(
    "A feed (RSS 0.9x/1.0/2.0, Atom 1.0, JSON Feed 1.0/1.1), a web page whose `<link rel=\"alternate\">` names one (the first such link is followed), or a Bilibili space `https://space.bilibili.com/<mid>`",
  )
  .meta({ example: "https://blog.example.org/feed/" });

const intervalSchema = z.number().int().min(15).max(1440).describe("Minutes between fetches (15..1440), each with ±10 % jitter");
const backfillSchema = z.number().int().min(0).max(50).describe("How many of the newest items the first fetch imports (0..50); the rest are recorded as `skipped`");
const feedTagsSchema = tagsSchema.describe("Tags every note from this feed gets, besides `feed` and its platform's own (up to 32)");

export const createFeedInput = z.object({
  url: urlSchema,
  tags: feedTagsSchema.optional(),
  interval_minutes: intervalSchema.default(DEFAULT_INTERVAL_MINUTES),
  backfill: backfillSchema.default(DEFAULT_BACKFILL),
});

export const updateFeedInput = z.object({
  id: feedIdSchema,
  tags: feedTagsSchema.optional(),
  interval_minutes: intervalSchema.optional(),
  paused: z.boolean().optional().describe("true stops fetching; false resumes it (a feed paused after 7 days of failures too), fetching soon"),
});

export const feedKindSchema = z.enum(["rss", "atom", "json", "bilibili"]).describe("`rss` (RSS 0.9x, 1.0 and 2.0), `atom`, `json` (JSON Feed) or `bilibili` (an uploader's newest videos)");

export const feedSchema = z
  .object({
    id: z.number().int().positive(),
    url: z.string().describe("The feed's address: after discovery, and after a permanent redirect (301, 308)"),
    title: z.string().nullable(),
    site_url: z.string().nullable().describe("The site the feed names (RSS `link`, Atom `link rel=\"alternate\"`, JSON Feed `home_page_url`)"),
    kind: feedKindSchema,
    tags: z.array(z.string()),
    interval_minutes: z.number().int(),
    backfill: z.number().int(),
    paused: z.boolean(),
    last_fetched_at: z.iso.datetime().nullable().describe("When the feed last answered (a 304 included); null before the first fetch"),
    next_fetch_at: z.iso.datetime().nullable().describe("When it is fetched next; null while paused"),
    last_error: z.string().nullable().describe("Why the last fetch failed (or why the feed was paused); null after a success"),
    items_seen: z.number().int().min(0).describe("Distinct items ever read from this feed"),
    items_imported: z.number().int().min(0).describe("Notes made from its items"),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "Feed" });
export type FeedRecord = z.infer<typeof feedSchema>;

export const listFeedsInput = z.object(pageQuery).prefault({});
export const feedPageSchema = pageEnvelope(feedSchema, "FeedPage");

export const itemStatusSchema = z
  .enum(["pending", "imported", "failed", "skipped"])
  .describe("`pending` until its import task ends, `imported` once its note exists, `failed` when the task failed, `skipped` when the backfill passed it over");

export const feedItemSchema = z
  .object({
    guid: z.string().describe("The item's id in the feed (RSS `guid`, Atom `id`, JSON Feed `id`; else its link; else a hash of its title and date)"),
    title: z.string().nullable(),
    url: z.string().nullable(),
    published_at: z.iso.datetime().nullable(),
    status: itemStatusSchema,
    task_id: z.number().int().positive().nullable().describe("Its import task (GET /api/tasks/{id}); null when skipped"),
    note_id: z.number().int().positive().nullable(),
  })
  .meta({ id: "FeedItem" });

export const listItemsInput = z.object({ id: feedIdSchema, ...pageQuery });
export const feedItemPageSchema = pageEnvelope(feedItemSchema, "FeedItemPage");

export const importOpmlInput = z.object({
  opml: z
    .string()
    .min(1, "Send the OPML document")
    .describe("The OPML document (on /api, send it as the raw body with Content-Type text/x-opml, application/xml or text/xml)"),
});

export const opmlResultSchema = z
  .object({
    added: z.number().int().min(0).describe("Feeds added"),
    skipped: z.array(z.object({ url: z.string(), reason: z.string() })).describe("Outlines not added, and why (already followed, not a feed, the 500-feed cap, …)"),
  })
  .meta({ id: "OpmlImport" });
