import { lt } from "drizzle-orm";
import type { Database } from "../../db/client";
import { webhookDeliveries } from "../../db/schema";

/** How long the delivery log keeps an attempt: long enough to look into last month's failures. */
export const DELIVERY_LOG_DAYS = 30;

/** Deletes delivery records older than DELIVERY_LOG_DAYS; returns how many. */
export async function pruneDeliveryLog(db: Database, now = Date.now()): Promise<number> {
  const deleted = await db
    .delete(webhookDeliveries)
    .where(lt(webhookDeliveries.createdAt, now - DELIVERY_LOG_DAYS * 24 * 60 * 60 * 1000))
    .returning({ id: webhookDeliveries.id });
  return deleted.length;
}
