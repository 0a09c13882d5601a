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

/** The most events the outlet of one process puts in one group job: a burst (an import) becomes several jobs. */
export const MAX_GROUP_EVENTS = 100;

/** One event of a group: its first attempt. */
export const groupEvent = deliveryPayload.omit({ attempt: true });
export type GroupEvent = z.infer<typeof groupEvent>;

/**
 * The first attempts of several events at one webhook, in the order they happened: one job, so
 * the queue's bookkeeping (fetch and complete), the webhook's lookup and the delivery log's
 * commit are paid once per group instead of once per event. Retries are single deliveries.
 *
 * An array on purpose: graphile-worker appends an array payload queued under the key of a job
 * still waiting to the one already there (its "batch jobs"), so the outlet adds each OUTBOX_GROUP_MS of
 * events to the job of its webhook and second; once that job has started, the same key makes a new
 * job. No upper bound here: a payload the schema refused would fail its job, and lose its events.
 */
export const deliveryGroupPayload = z.array(groupEvent).min(1);
export type DeliveryGroup = z.infer<typeof deliveryGroupPayload>;

/** The webhook service's view of the job queue (jobs/catalogue.ts implements it). */
export interface WebhookQueue {
  /** Resolves once the delivery is durably queued; `runAt` for a retry. */
  enqueueDelivery(payload: DeliveryPayload, runAt?: Date): Promise<void>;
  /** Single deliveries of many events, in one queue transaction (what a group hands back when its receiver stops answering). */
  enqueueDeliveries(payloads: DeliveryPayload[]): Promise<void>;
  /**
   * First attempts of many events, grouped per webhook (groupDeliveries), in one queue statement
   * (the outlet and the outbox relay); a group whose key names a job still waiting is appended to
   * it. `runAt` gathers them.
   */
  enqueueGroups(groups: { key: string; events: DeliveryGroup }[], runAt?: Date): Promise<void>;
}

/** One queued job per webhook and event: a retry replaces its own pending job, never adds a second. */
export function deliveryJobKey(webhookId: number, eventId: string): string {
  return `webhook:${webhookId}:${eventId}`;
}

/** The key of a group job that the outlet appends to: one per webhook, due time and (past MAX_GROUP_EVENTS) sequence. */
export function groupJobKey(webhookId: number, dueAt: number, sequence: number): string {
  return `webhook-group:${webhookId}:${dueAt}:${sequence}`;
}

/** First attempts split per webhook, each webhook's in the order given, at most MAX_GROUP_EVENTS a group. */
export function groupDeliveries(payloads: readonly DeliveryPayload[]): DeliveryGroup[] {
  const open = new Map<number, DeliveryGroup>();
  const groups: DeliveryGroup[] = [];
  for (const { attempt: _attempt, ...event } of payloads) {
    let group = open.get(event.webhookId);
    if (!group || group.length >= MAX_GROUP_EVENTS) {
      group = [];
      open.set(event.webhookId, group);
      groups.push(group);
    }
    group.push(event);
  }
  return groups;
}
