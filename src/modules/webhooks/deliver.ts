import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { webhookDeliveries, webhooks } from "../../db/schema";
import { log } from "../../log";
import { ImportError } from "../imports/import-error";
import type { Poster } from "../imports/safe-fetch";
import { signDelivery } from "./signature";
import type { DeliveryPayload, WebhookQueue } from "./webhook-queue";

/** The contract's cut for an answer (connect, send, headers). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** A webhook whose every attempt failed for this long is turned off. */
export const DISABLE_AFTER_MS = 3 * 24 * 60 * 60 * 1000;

export interface DeliveryRun {
  db: Database;
  /** A POST under the import address rules, with DELIVERY_TIMEOUT_MS and no redirects (safe-fetch's poster). */
  post: Poster;
  queue: WebhookQueue;
  /** WEBHOOK_RETRY_DELAYS: the wait before attempt 2, 3, …; past the last, the event is given up. */
  retryDelaysMs: readonly number[];
  signal?: AbortSignal;
  now?: () => number;
}

/**
 * One attempt of one event at one webhook (a job). Each attempt is recorded; a failure queues the
 * next attempt after its delay (the same `webhook-id` and body, a fresh timestamp and signature),
 * and turns the webhook off once its deliveries have all failed for 3 days. The attempt's outcome
 * is the job's own success: only a crash runs the job again (delivery is at least once).
 */
export async function deliverWebhookEvent(run: DeliveryRun, payload: DeliveryPayload): Promise<void> {
  const now = run.now ?? Date.now;
  const [hook] = await run.db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.id, payload.webhookId), eq(webhooks.userId, payload.userId)));
  // Deleted or turned off meanwhile: nothing more is sent.
  if (!hook || !hook.enabled) return;

  const body = JSON.stringify({ type: payload.type, timestamp: payload.timestamp, data: payload.data });
  const started = now();
  const timestamp = Math.floor(started / 1000);
  let statusCode: number | null = null;
  let error: string | null = null;
  try {
    const answer = await run.post(hook.url, {
      headers: {
        "user-agent": "Rhizome-Webhooks/1",
        "webhook-id": payload.eventId,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signDelivery(hook.secret, payload.eventId, timestamp, body),
      },
      body,
      signal: run.signal,
    });
    statusCode = answer.status;
    if (statusCode < 200 || statusCode > 299) error = `HTTP ${statusCode}`;
  } catch (caught) {
    // A graceful shutdown cut the attempt: the job runs again on the next worker.
    if (run.signal?.aborted) throw caught;
    error = caught instanceof ImportError ? (caught.reason ?? "the request failed") : "the request failed";
    if (!(caught instanceof ImportError)) log.warn(`webhook ${hook.id}: a delivery failed unexpectedly`, caught);
  }
  const finished = now();
  await run.db.insert(webhookDeliveries).values({
    webhookId: hook.id,
    eventId: payload.eventId,
    type: payload.type,
    attempt: payload.attempt,
    statusCode,
    durationMs: Math.max(0, finished - started),
    error,
    createdAt: finished,
  });

  if (error === null) {
    if (hook.failingSince !== null) await run.db.update(webhooks).set({ failingSince: null }).where(eq(webhooks.id, hook.id));
    return;
  }
  const [failing] = await run.db
    .update(webhooks)
    .set({ failingSince: sql`coalesce(${webhooks.failingSince}, ${started})` })
    .where(eq(webhooks.id, hook.id))
    .returning({ failingSince: webhooks.failingSince });
  if (failing?.failingSince != null && finished - failing.failingSince >= DISABLE_AFTER_MS) {
    const reason = `Disabled on ${new Date(finished).toISOString()}: every delivery failed for 3 days (last: ${error})`;
    await run.db
      .update(webhooks)
      .set({ enabled: false, disabledReason: reason, updatedAt: finished })
      .where(and(eq(webhooks.id, hook.id), eq(webhooks.enabled, true), isNull(webhooks.disabledReason)));
    log.warn(`webhook ${hook.id} of user ${hook.userId} disabled after 3 days of failed deliveries`);
    return;
  }
  const delay = run.retryDelaysMs[payload.attempt - 1];
  if (delay === undefined) return; // every attempt spent: the log shows them all
  await run.queue.enqueueDelivery({ ...payload, attempt: payload.attempt + 1 }, new Date(finished + delay));
}
