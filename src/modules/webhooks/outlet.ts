import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { webhooks } from "../../db/schema";
import { preparedPerDatabase } from "../../db/prepared";
import { readStatements } from "../../db/read-statements";
import type { ChangeEventOutlet } from "../events/change";
import type { ExtractorSettings } from "../graph/create-extractor";
import { readEventData } from "./event-data";
import { newEventId } from "./signature";
import type { WebhookQueue } from "./webhook-queue";

const statements = preparedPerDatabase((db) => ({
  // Every change event asks this: one indexed read, on a statement SQLite keeps prepared.
  subscribed: db
    .select({ id: webhooks.id, events: webhooks.events })
    .from(webhooks)
    .where(and(eq(webhooks.userId, sql.placeholder("userId")), eq(webhooks.enabled, true)))
    .prepare(),
}));

/**
 * The webhooks' outlet of change events: each event is queued as one delivery job per enabled
 * webhook of its user that subscribed to its type, with one `webhook-id` for all of them. It
 * resolves once the jobs are in the queue (Postgres), so from then on no crash loses the event.
 */
export function createWebhookOutlet(deps: { db: Database; queue: WebhookQueue; graphSettings: ExtractorSettings; now?: () => number }): ChangeEventOutlet {
  const now = deps.now ?? Date.now;
  return {
    async emit(userId, event, subject) {
      const hooks = await readStatements(deps.db).all(statements(deps.db).subscribed, { userId });
      const targets = hooks.filter((hook) => (JSON.parse(hook.events) as string[]).includes(event.type));
      if (targets.length === 0) return;
      const data = await readEventData(deps.db, userId, event, subject, deps.graphSettings);
      if (!data) return;
      const eventId = newEventId();
      const timestamp = new Date(now()).toISOString();
      await Promise.all(
        targets.map((hook) => deps.queue.enqueueDelivery({ webhookId: hook.id, userId, eventId, type: event.type, timestamp, data, attempt: 1 })),
      );
    },
  };
}
