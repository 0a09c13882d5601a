import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { feedItems, importTasks } from "../../db/schema";
import type { ChangePublisher } from "../events/change";
import type { ImportQueue } from "../imports/import-queue";
import { importedTags } from "../notes/note-text";
import type { FeedEntry } from "./feed-entry";
import type { FeedRow } from "./feed-record";
import { itemTask } from "./item-task";

/** After the first fetch, at most this many new items of one fetch are imported; the rest are `skipped` (a feed that renumbered its items must not flood the notes). */
export const MAX_NEW_PER_FETCH = 50;
/** Ids looked up per statement. */
const LOOKUP_CHUNK = 400;

/**
 * The statements recording a fetch's new items: the first fetch marks all but the newest
 * `backfill` as skipped, later ones all but the newest 50; each other new item waits (`new`) with
 * what it carried until its task is made. Run in one batch with the feed's own update.
 */
export async function newItemRows(db: Database, feed: FeedRow, entries: FeedEntry[], now: number) {
  const unique = [...new Map(entries.map((entry) => [entry.id, entry])).values()];
  const known = new Set<string>();
  for (let start = 0; start < unique.length; start += LOOKUP_CHUNK) {
    const ids = unique.slice(start, start + LOOKUP_CHUNK).map((entry) => entry.id);
    const rows = await db.select({ guid: feedItems.guid }).from(feedItems).where(and(eq(feedItems.feedId, feed.id), inArray(feedItems.guid, ids)));
    for (const row of rows) known.add(row.guid);
  }
  // Listed order stands for the undated: the first listed is taken as the newest.
  const fresh = unique
    .map((entry, index) => ({ entry, sortAt: entry.publishedAt ? Date.parse(entry.publishedAt) : now - index }))
    .filter(({ entry }) => !known.has(entry.id))
    .sort((a, b) => b.sortAt - a.sortAt);
  const take = feed.backfilled ? MAX_NEW_PER_FETCH : feed.backfill;
  return fresh.map(({ entry, sortAt }, index) => {
    const { id: guid, ...carried } = entry;
    const skipped = index >= take;
    return {
      feedId: feed.id,
      userId: feed.userId,
      guid,
      title: entry.title,
      url: entry.url,
      publishedAt: entry.publishedAt ? Date.parse(entry.publishedAt) : null,
      sortAt,
      state: skipped ? ("skipped" as const) : ("new" as const),
      pending: skipped ? null : JSON.stringify(carried),
      createdAt: now,
    };
  });
}

/**
 * Makes the import task of each of the feed's items still waiting (`new`), oldest first, the task
 * and the item's link to it in one transaction; then queues their jobs. A task the queue did not
 * take is queued by the reconciler (it is pending in the database).
 */
export async function queueItemTasks(run: { db: Database; importQueue: ImportQueue; changes: ChangePublisher }, feed: FeedRow, now: number): Promise<number> {
  const { db } = run;
  const waiting = await db
    .select({ id: feedItems.id, guid: feedItems.guid, pending: feedItems.pending })
    .from(feedItems)
    .where(and(eq(feedItems.feedId, feed.id), eq(feedItems.state, "new")))
    .orderBy(asc(feedItems.sortAt), asc(feedItems.id));
  const tags = JSON.stringify(importedTags(["feed", ...(JSON.parse(feed.tags) as string[])]));
  const made: number[] = [];
  for (const item of waiting) {
    const entry: FeedEntry = { id: item.guid, ...(JSON.parse(item.pending ?? "{}") as Omit<FeedEntry, "id">) };
    let task;
    try {
      task = itemTask(entry, feed.userId);
    } catch {
      // Markup too deep to read as text: its page is fetched instead, when it has one.
      task = entry.url ? itemTask({ ...entry, html: null, text: null, enclosure: null }, feed.userId) : null;
    }
    if (!task) {
      await db.update(feedItems).set({ state: "skipped", pending: null }).where(eq(feedItems.id, item.id));
      continue;
    }
    const [inserted] = await db.batch([
      db
        .insert(importTasks)
        .values({
          userId: feed.userId,
          platform: task.platform,
          url: task.url,
          document: task.document ? JSON.stringify(task.document) : null,
          tags,
          feedId: feed.id,
          status: "pending",
          progress: 0,
          message: "Queued",
          createdAt: now,
          updatedAt: now,
        })
        .returning({ id: importTasks.id }),
      db
        .update(feedItems)
        .set({ state: "queued", taskId: sql`last_insert_rowid()`, pending: null })
        .where(and(eq(feedItems.id, item.id), eq(feedItems.state, "new"))),
    ]);
    made.push(inserted[0]!.id);
  }
  for (const id of made) {
    await run.changes.publish({ userId: feed.userId, kind: "task", id });
    try {
      await run.importQueue.enqueueImport({ id, userId: feed.userId });
    } catch {
      // Pending in the database: the reconciler queues it within a minute or two.
    }
  }
  return made.length;
}
