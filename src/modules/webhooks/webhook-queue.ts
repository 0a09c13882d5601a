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

/** The webhook service's view of the job queue (jobs/catalogue.ts implements it). */
export interface WebhookQueue {
  /** Resolves once the delivery is durably queued; `runAt` for a retry. */
  enqueueDelivery(payload: DeliveryPayload, runAt?: Date): Promise<void>;
  /** First attempts of many events, in one queue transaction (the outbox relay). */
  enqueueDeliveries(payloads: DeliveryPayload[]): Promise<void>;
}

/** One queued job per webhook and event: a retry replaces its own pending job, never adds a second. */
export function deliveryJobKey(webhookId: number, eventId: string): string {
  return `webhook:${webhookId}:${eventId}`;
}
