import { and, count, desc, eq } from "drizzle-orm";
import type { z } from "zod";
import { feedItems, importTasks } from "../../db/schema";
import { pageOf } from "../pagination";
import { ownFeed } from "./feed-record";
import type { FeedsCtx } from "./manage-feeds";
import type * as s from "./schemas";

type ItemStatus = z.infer<typeof s.itemStatusSchema>;

/** GET /api/feeds/{id}/items: newest first (by publication, else by when it was first seen), with its task's outcome. */
export async function listFeedItems({ ctx, input }: { ctx: FeedsCtx; input: z.infer<typeof s.listItemsInput> }) {
  await ownFeed(ctx, input.id);
  const mine = and(eq(feedItems.feedId, input.id), eq(feedItems.userId, ctx.userId));
  const [total] = await ctx.db.select({ n: count() }).from(feedItems).where(mine);
  const rows = await ctx.db
    .select({
      guid: feedItems.guid,
      title: feedItems.title,
      url: feedItems.url,
      publishedAt: feedItems.publishedAt,
      state: feedItems.state,
      taskId: feedItems.taskId,
      taskStatus: importTasks.status,
      noteId: importTasks.noteId,
    })
    .from(feedItems)
    .leftJoin(importTasks, eq(importTasks.id, feedItems.taskId))
    .where(mine)
    .orderBy(desc(feedItems.sortAt), desc(feedItems.id))
    .limit(input.size)
    .offset((input.page - 1) * input.size);
  const items = rows.map((row) => ({
    guid: row.guid,
    title: row.title,
    url: row.url,
    published_at: row.publishedAt === null ? null : new Date(row.publishedAt).toISOString(),
    status: statusOf(row.state, row.taskStatus),
    task_id: row.taskId,
    note_id: row.taskStatus === "completed" ? row.noteId : null,
  }));
  return pageOf(items, total?.n ?? 0, input);
}

function statusOf(state: "new" | "queued" | "skipped", task: string | null): ItemStatus {
  if (state === "skipped") return "skipped";
  if (state === "new") return "pending";
  if (task === "completed") return "imported";
  if (task === "failed" || task === null) return "failed";
  return "pending";
}
