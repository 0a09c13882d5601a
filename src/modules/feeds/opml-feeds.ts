import { and, eq, sql } from "drizzle-orm";
import type { z } from "zod";
import { feeds } from "../../db/schema";
import { spaceMidOf, spaceUrl } from "../imports/platforms/bilibili/space";
import { importedTags } from "../notes/note-text";
import { InvalidInputError } from "../errors";
import { feedServices, feedsOf, type FeedsCtx } from "./manage-feeds";
import { NotOpmlError, readOpml, writeOpml } from "./opml";
import * as s from "./schemas";

/**
 * POST /api/feeds/opml: each outline's feed is added as given, without fetching it (a list of a
 * hundred feeds would not fit in one request's 30 s): its first fetch reads it, follows a page's
 * alternate link, and sets its kind and title — or says in `last_error` why it is not a feed.
 * The enclosing categories become its tags. Feeds already followed, addresses that are not http(s)
 * and those past the 500-feed cap are listed in `skipped`.
 */
export async function importOpml({ ctx, input, now = Date.now() }: { ctx: FeedsCtx; input: z.infer<typeof s.importOpmlInput>; now?: number }) {
  const services = feedServices(ctx);
  let outlines;
  try {
    outlines = readOpml(input.opml);
  } catch (error) {
    if (error instanceof NotOpmlError) throw new InvalidInputError(`This is not an OPML document (${error.message}).`);
    throw error;
  }
  const skipped: { url: string; reason: string }[] = [];
  const added: { id: number; userId: number }[] = [];
  const seen = new Set<string>();
  for (const outline of outlines) {
    const url = normalised(outline.url);
    if (!url) {
      skipped.push({ url: outline.url, reason: "not an http or https address" });
      continue;
    }
    if (seen.has(url)) {
      skipped.push({ url, reason: "listed twice in this document" });
      continue;
    }
    seen.add(url);
    const mid = spaceMidOf(url);
    const inserted = await ctx.db.all<{ id: number }>(sql`
      insert into ${feeds} (user_id, url, title, site_url, kind, tags, interval_minutes, backfill, paused, next_fetch_at, failures, backfilled, created_at, updated_at)
      select ${ctx.userId}, ${mid ? spaceUrl(mid) : url}, ${outline.title}, null, ${mid ? "bilibili" : "rss"}, ${JSON.stringify(importedTags(outline.tags))},
        ${s.DEFAULT_INTERVAL_MINUTES}, ${s.DEFAULT_BACKFILL}, 0, ${now}, 0, 0, ${now}, ${now}
      where (select count(*) from ${feeds} where user_id = ${ctx.userId}) < ${s.MAX_FEEDS_PER_USER}
      on conflict (user_id, url) do nothing
      returning id`);
    if (inserted[0]) {
      added.push({ id: inserted[0].id, userId: ctx.userId });
      continue;
    }
    const [existing] = await ctx.db.select({ id: feeds.id }).from(feeds).where(and(eq(feeds.userId, ctx.userId), eq(feeds.url, mid ? spaceUrl(mid) : url)));
    skipped.push({ url, reason: existing ? `already followed (feed ${existing.id})` : `the ${s.MAX_FEEDS_PER_USER}-feed cap is reached` });
  }
  if (added.length > 0) {
    try {
      await services.queue.enqueueFetches(added);
    } catch {
      // They are due now: the next minute's sweep queues them.
    }
  }
  return { added: added.length, skipped };
}

/** GET /api/feeds/opml: the user's feeds as an OPML 2.0 download. */
export async function exportOpml({ ctx }: { ctx: FeedsCtx }): Promise<Response> {
  const rows = await feedsOf(ctx);
  const document = writeOpml(rows.map((row) => ({ url: row.url, title: row.title, siteUrl: row.siteUrl, tags: JSON.parse(row.tags) as string[] })));
  return new Response(document, {
    headers: {
      "content-type": "text/x-opml; charset=utf-8",
      "content-disposition": 'attachment; filename="rhizome-feeds.opml"',
      "x-content-type-options": "nosniff",
      "cache-control": "no-store",
    },
  });
}

function normalised(url: string): string | null {
  const parsed = URL.parse(url.trim());
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:") || url.length > 2048) return null;
  return parsed.href;
}
