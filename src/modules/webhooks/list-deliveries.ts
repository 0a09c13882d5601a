import { desc, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { webhookDeliveries } from "../../db/schema";
import { pageOf } from "../pagination";
import { ownWebhook } from "./manage-webhooks";

/** One record per attempt, newest first; another user's webhook is a 404. */
export async function listDeliveries({ ctx, input }: { ctx: { db: Database; userId: number }; input: { id: number; page: number; size: number } }) {
  await ownWebhook(ctx, input.id);
  const mine = eq(webhookDeliveries.webhookId, input.id);
  const [rows, [count]] = await Promise.all([
    ctx.db
      .select()
      .from(webhookDeliveries)
      .where(mine)
      .orderBy(desc(webhookDeliveries.id))
      .limit(input.size)
      .offset((input.page - 1) * input.size),
    ctx.db.select({ total: sql<number>`count(*)` }).from(webhookDeliveries).where(mine),
  ]);
  const items = rows.map((row) => ({
    id: row.id,
    event_id: row.eventId,
    type: row.type,
    attempt: row.attempt,
    status_code: row.statusCode,
    duration_ms: row.durationMs,
    error: row.error,
    created_at: new Date(row.createdAt).toISOString(),
  }));
  return pageOf(items, count!.total, input);
}
