import { and, eq, inArray } from "drizzle-orm";
import { webhookDeliveries } from "../../db/schema";
import { attemptDelivery, type AttemptOutcome, deliverableWebhook, type DeliveryRun, settleAttempts } from "./deliver";
import { signingKey } from "./signature";
import type { DeliveryGroup, DeliveryPayload } from "./webhook-queue";

/**
 * The first attempts of a group of events at one webhook (one job): each event is one POST, as
 * Standard Webhooks has it, in the order the events happened, over a connection kept open for the
 * group, signed with a key made once. What follows is as for a single attempt (deliver.ts), settled
 * once for the whole group: each failed event's next attempt is queued as a single delivery under
 * its own `webhook-id`, and the log is written in one insert.
 *
 * A receiver that gives no answer at all (timed out, refused, blocked) stops the group: the events
 * not yet sent are handed back as single first attempts, so each gets its own 10 s, and none waits
 * behind a hanging one for more than that. A run cut by a graceful shutdown settles what it sent,
 * then throws so the job runs again; a run again (after that, or a crash) skips the events the log
 * has a first attempt of. A crash before the log is written sends the group again: at least once.
 */
export async function deliverWebhookGroup(run: DeliveryRun, group: DeliveryGroup, options: { rerun: boolean }): Promise<void> {
  // One webhook's events, as the outlet and the relay queue them; an event carried twice (a group
  // the relay moved again, appended to its own job) is sent once.
  const seen = new Set<string>();
  const byWebhook = new Map<string, DeliveryPayload[]>();
  for (const event of group) {
    if (seen.has(event.eventId)) continue;
    seen.add(event.eventId);
    const key = `${event.webhookId}:${event.userId}`;
    byWebhook.set(key, [...(byWebhook.get(key) ?? []), { ...event, attempt: 1 }]);
  }
  for (const events of byWebhook.values()) await deliverToWebhook(run, events, options);
}

async function deliverToWebhook(run: DeliveryRun, events: DeliveryPayload[], options: { rerun: boolean }): Promise<void> {
  const hook = await deliverableWebhook(run.db, events[0]!.webhookId, events[0]!.userId, run.now?.());
  if (!hook) return;
  let pending = events;
  if (options.rerun) {
    const logged = await run.db
      .select({ eventId: webhookDeliveries.eventId })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.webhookId, hook.id), eq(webhookDeliveries.attempt, 1), inArray(webhookDeliveries.eventId, pending.map((event) => event.eventId))));
    const done = new Set(logged.map((row) => row.eventId));
    pending = pending.filter((event) => !done.has(event.eventId));
  }
  const key = signingKey(hook.secret);
  const connections = run.keepConnections?.();
  const outcomes: AttemptOutcome[] = [];
  let handBack: DeliveryPayload[] = [];
  let cut: { error: unknown } | undefined;
  try {
    for (let i = 0; i < pending.length; i++) {
      let outcome: AttemptOutcome;
      try {
        outcome = await attemptDelivery(run, hook, key, pending[i]!, connections);
      } catch (error) {
        cut = { error };
        break;
      }
      outcomes.push(outcome);
      if (outcome.statusCode === null) {
        handBack = pending.slice(i + 1);
        break;
      }
    }
  } finally {
    connections?.close();
  }
  await settleAttempts(run, hook, outcomes, handBack);
  if (cut) throw cut.error;
}
