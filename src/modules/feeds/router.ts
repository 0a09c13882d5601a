import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { protectedProcedure, router } from "../../trpc/procedures";
import { listFeedItems } from "./list-items";
import { deleteFeed, getFeed, listFeeds, refreshFeed, subscribeFeed, updateFeed } from "./manage-feeds";
import { exportOpml, importOpml } from "./opml-feeds";
import * as s from "./schemas";

const tags = ["feeds"];
const access = "imports";

export const feedsRouter = router({
  create: protectedProcedure
    .meta({
      access,
      openapi: {
        method: "POST",
        path: "/feeds",
        tags,
        summary: "Follow a feed, a page that names one, or a Bilibili space",
        description:
          "The address is fetched under the import address rules: an RSS 0.9x/1.0/2.0, Atom 1.0 or JSON Feed 1.0/1.1 document (`kind` rss, atom, json), a web page whose first `<link rel=\"alternate\">` of one of those types names the feed, or a Bilibili space `https://space.bilibili.com/<mid>` (`kind` bilibili: the uploader's newest videos). Anything else is a 400 saying what was found. The first fetch is queued at once and imports the newest `backfill` items (default 5); after that each new item becomes an import task (platform chosen from its link; a full-text item is imported from its text, a podcast episode transcribed), every `interval_minutes` (default 60) with ±10 % jitter. The same feed twice is a 409, and so is a 501st.",
      },
      successStatus: 201,
    })
    .input(s.createFeedInput)
    .output(s.feedSchema)
    .mutation(({ ctx, input }) => subscribeFeed({ ctx, input })),

  list: protectedProcedure
    .meta({ access, openapi: { method: "GET", path: "/feeds", tags, summary: "The feeds you follow, newest subscription first" } })
    .input(s.listFeedsInput)
    .output(s.feedPageSchema)
    .query(({ ctx, input }) => listFeeds({ ctx, input })),

  exportOpml: protectedProcedure
    .meta({
      access,
      openapi: { method: "GET", path: "/feeds/opml", tags, summary: "Your feeds as an OPML 2.0 document (a download)", description: "One `<outline type=\"rss\">` per feed, with `xmlUrl`, `htmlUrl`, its title and its tags in `category`." },
      download: "text/x-opml",
      downloadFilename: "rhizome-feeds.opml",
    })
    .input(z.void())
    .output(z.instanceof(Response).meta({ override: { type: "string", format: "binary" } }))
    .query(({ ctx }) => {
      if (ctx.transport !== "download") throw new TRPCError({ code: "METHOD_NOT_SUPPORTED", message: "The OPML export is a download: GET /api/feeds/opml" });
      return exportOpml({ ctx });
    }),

  importOpml: protectedProcedure
    .meta({
      access,
      openapi: {
        method: "POST",
        path: "/feeds/opml",
        tags,
        summary: "Follow every feed of an OPML document",
        description:
          "Send the document as the body (`text/x-opml`, `application/xml` or `text/xml`, at most 2 MiB), or JSON `{opml}`. Nested outlines are read; an outline's enclosing categories become the feed's tags. Each feed is added without being fetched here: its first fetch reads it (following a page's alternate link) and sets its kind and title, or says in `last_error` why it is no feed. Feeds already followed, addresses that are not http(s) and those past the 500-feed cap are in `skipped` with the reason. The document's entities are never expanded and no DTD is ever loaded: a hostile document is refused or read as text.",
      },
      maxBodyBytes: s.OPML_BODY_LIMIT,
      rawBody: { field: "opml", contentTypes: s.OPML_CONTENT_TYPES },
    })
    .input(s.importOpmlInput)
    .output(s.opmlResultSchema)
    .mutation(({ ctx, input }) => importOpml({ ctx, input })),

  get: protectedProcedure
    .meta({ access, openapi: { method: "GET", path: "/feeds/{id}", tags, summary: "One feed: its schedule, last fetch, last error and counts" } })
    .input(s.feedIdInput)
    .output(s.feedSchema)
    .query(({ ctx, input }) => getFeed({ ctx, input })),

  update: protectedProcedure
    .meta({ access, openapi: { method: "PATCH", path: "/feeds/{id}", tags, summary: "Change a feed's tags or interval, or pause and resume it (omitted fields keep their value)" } })
    .input(s.updateFeedInput)
    .output(s.feedSchema)
    .mutation(({ ctx, input }) => updateFeed({ ctx, input })),

  delete: protectedProcedure
    .meta({ access, openapi: { method: "DELETE", path: "/feeds/{id}", tags, summary: "Unsubscribe (the notes made from its items stay)" }, successStatus: 204 })
    .input(s.feedIdInput)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteFeed({ ctx, input })),

  refresh: protectedProcedure
    .meta({ access, openapi: { method: "POST", path: "/feeds/{id}/refresh", tags, summary: "Fetch a feed now (queued: 202); 409 while it is paused" }, successStatus: 202 })
    .input(s.feedIdInput)
    .output(s.feedSchema)
    .mutation(({ ctx, input }) => refreshFeed({ ctx, input })),

  items: protectedProcedure
    .meta({ access, openapi: { method: "GET", path: "/feeds/{id}/items", tags, summary: "A feed's items, newest first, with what became of each (pending, imported, failed, skipped)" } })
    .input(s.listItemsInput)
    .output(s.feedItemPageSchema)
    .query(({ ctx, input }) => listFeedItems({ ctx, input })),
});
