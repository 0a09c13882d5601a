import { z } from "zod";

/** One event on its way to one webhook: the job payload, the same body on every attempt. */
export const deliveryPayload = z.object({
  webhookId: z.number().int().positive(),
  userId: z.number().int().positive(),
  /** The `webhook-id` header, stable across retries. */
  eventId: z.string().min(1).max(100),
  type: z.string().min(1).max(100),
  /** ISO time of the event: the body's `timestamp`. */
  timestamp: z.string(),
  data: z.record(z.string(), z.unknown()),
  /** 1 for the first attempt. */
  attempt: z.number().int().positive(),
});
export type DeliveryPayload = z.infer<typeof deliveryPayload>;

/** The most events one group job carries: a burst (an import) becomes several jobs, none holding a worker for long. */
export const MAX_GROUP_EVENTS = 100;

/**
 * The first attempts of several events at one webhook, in the order they happened: one job, so
 * the queue's bookkeeping (fetch and complete), the webhook's lookup and the delivery log's
 * commit are paid once per group instead of once per event. Retries are single deliveries.
 */
export const deliveryGroupPayload = z.object({
  webhookId: z.number().int().positive(),
  userId: z.number().int().positive(),
  events: z
    .array(deliveryPayload.pick({ eventId: true, type: true, timestamp: true, data: true }))
    .min(1)
    .max(MAX_GROUP_EVENTS),
});
export type DeliveryGroup = z.infer<typeof deliveryGroupPayload>;

/** The webhook service's view of the job queue (jobs/catalogue.ts implements it). */
export interface WebhookQueue {
  /** Resolves once the delivery is durably queued; `runAt` for a retry. */
  enqueueDelivery(payload: DeliveryPayload, runAt?: Date): Promise<void>;
  /** Single deliveries of many events, in one queue transaction (what a group hands back when its receiver stops answering). */
  enqueueDeliveries(payloads: DeliveryPayload[]): Promise<void>;
  /** First attempts of many events, grouped per webhook (groupDeliveries), in one queue transaction (the outlet and the outbox relay); `runAt` to gather them. */
  enqueueGroups(groups: DeliveryGroup[], runAt?: Date): Promise<void>;
}

/** One queued job per webhook and event: a retry replaces its own pending job, never adds a second. */
export function deliveryJobKey(webhookId: number, eventId: string): string {
  return `webhook:${webhookId}:${eventId}`;
}

/** A group is known by its webhook and first event: queued again (the relay after a crash), it replaces itself. */
export function groupJobKey(group: DeliveryGroup): string {
  return `webhook-group:${group.webhookId}:${group.events[0]!.eventId}`;
}

/** First attempts split per webhook, each webhook's in the order given, at most MAX_GROUP_EVENTS a group. */
export function groupDeliveries(payloads: readonly DeliveryPayload[]): DeliveryGroup[] {
  const open = new Map<number, DeliveryGroup>();
  const groups: DeliveryGroup[] = [];
  for (const { webhookId, userId, eventId, type, timestamp, data } of payloads) {
    let group = open.get(webhookId);
    if (!group || group.events.length >= MAX_GROUP_EVENTS) {
      group = { webhookId, userId, events: [] };
      open.set(webhookId, group);
      groups.push(group);
    }
    group.events.push({ eventId, type, timestamp, data });
  }
  return groups;
}
