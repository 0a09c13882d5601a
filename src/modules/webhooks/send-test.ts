import type { Database } from "../../db/client";
import { log } from "../../log";
import { ConflictError, QueueUnavailableError } from "../errors";
import { ownWebhook } from "./manage-webhooks";
import { newEventId } from "./signature";
import type { WebhookQueue } from "./webhook-queue";

/** Queues a `webhook.test` event for one webhook, delivered and retried like any other; a webhook that is turned off is a 409. */
export async function sendTestEvent({ ctx, input, now = Date.now() }: { ctx: { db: Database; userId: number; webhookQueue?: WebhookQueue }; input: { id: number }; now?: number }) {
  const hook = await ownWebhook(ctx, input.id);
  if (!hook.enabled) throw new ConflictError(`Webhook ${hook.id} is turned off${hook.disabledReason ? ` (${hook.disabledReason})` : ""}; turn it on with PATCH {"enabled": true} first`);
  if (!ctx.webhookQueue) throw new QueueUnavailableError();
  const eventId = newEventId();
  const timestamp = new Date(now).toISOString();
  try {
    await ctx.webhookQueue.enqueueDelivery({
      webhookId: hook.id,
      userId: ctx.userId,
      eventId,
      type: "webhook.test",
      timestamp,
      data: { webhook_id: hook.id, message: "A test event from Rhizome: this webhook is wired up." },
      attempt: 1,
    });
  } catch (error) {
    log.warn(`could not queue a test event for webhook ${hook.id}; answering 503`, error);
    throw new QueueUnavailableError();
  }
  return { event_id: eventId };
}
