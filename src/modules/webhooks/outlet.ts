import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { webhookOutbox, webhooks } from "../../db/schema";
import { preparedPerDatabase } from "../../db/prepared";
import { readStatements } from "../../db/read-statements";
import { log } from "../../log";
import type { ChangeEventOutlet } from "../events/change";
import type { ExtractorSettings } from "../graph/create-extractor";
import { readEventData } from "./event-data";
import { newEventId } from "./signature";
import { type DeliveryGroup, type DeliveryPayload, groupDeliveries, groupJobKey, MAX_GROUP_EVENTS, type WebhookQueue } from "./webhook-queue";

/**
 * Events are queued together at most this often: one Postgres statement and commit for all of
 * them. Each of those cost the note writes beside it (bench:webhooks: at 20 ms the writes with a
 * webhook were 1.12× the baseline's p50, at 100 ms 1.04×); the groups wait for the next whole
 * second anyway, so the longer wait adds little lag. The price is the window in which an API
 * process killed (not stopped: a shutdown flushes) loses the events of its last writes.
 */
export const OUTBOX_GROUP_MS = 100;
/**
 * Queued groups are due at the next whole DELIVERY_TICK_MS (at least OUTBOX_GROUP_MS later), and
 * each OUTBOX_GROUP_MS of a webhook's events is appended to the one job of its webhook and second
 * (see deliveryGroupPayload): the worker (on its poll, every 2 s, or as it finishes the jobs before)
 * takes one job per webhook and second instead of one a group. Fewer, larger pieces of
 * delivery work leave most note writes of a process that also runs the worker (ROLE=all) with none
 * beside them, and the queue's work per job is shared by more events; the price is a delivery lag
 * of a second or two (measured: bench:webhooks in the README).
 */
export const DELIVERY_TICK_MS = 1_000;
const dueAt = (now: number) => Math.ceil((now + OUTBOX_GROUP_MS) / DELIVERY_TICK_MS) * DELIVERY_TICK_MS;

const statements = preparedPerDatabase((db) => ({
  // Every change event asks this: one indexed read, on a statement SQLite keeps prepared.
  subscribed: db
    .select({ id: webhooks.id, events: webhooks.events })
    .from(webhooks)
    .where(and(eq(webhooks.userId, sql.placeholder("userId")), eq(webhooks.enabled, true)))
    .prepare(),
}));

export interface WebhookOutlet extends ChangeEventOutlet {
  /** Writes what is still buffered (at shutdown). */
  flush(): Promise<void>;
}

/**
 * The webhooks' outlet of change events: an event of a type some enabled webhook of its user
 * subscribed to becomes one first delivery per such webhook, with one `webhook-id` for all.
 * They are queued in groups every OUTBOX_GROUP_MS (one Postgres transaction), so a note write
 * pays no commit of its own for its event, and each group is one job per webhook (deliver-group.ts),
 * so the worker pays its bookkeeping once per group too; a group the queue does not take (Postgres down) is
 * written to the outbox in the notes database, which the relay moves into the queue later. The
 * price: an API process killed within those milliseconds of a write loses that write's event.
 * Users without webhooks cost one indexed read.
 */
export function createWebhookOutlet(deps: { db: Database; queue: WebhookQueue; graphSettings: ExtractorSettings; onOutbox: () => void; now?: () => number }): WebhookOutlet {
  const now = deps.now ?? Date.now;
  let buffered: DeliveryPayload[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing: Promise<void> = Promise.resolve();

  // Per webhook: the due time of the job its events go to now, its sequence and how many this process put in it.
  const appending = new Map<number, { due: number; sequence: number; count: number }>();
  function keyed(groups: DeliveryGroup[], due: number) {
    if (appending.size > 10_000) appending.clear(); // old seconds' entries; a cleared one starts a new job, no more
    return groups.map((events) => {
      const webhookId = events[0]!.webhookId;
      let at = appending.get(webhookId);
      if (!at || at.due !== due) appending.set(webhookId, (at = { due, sequence: 0, count: 0 }));
      if (at.count > 0 && at.count + events.length > MAX_GROUP_EVENTS) at = { due, sequence: at.sequence + 1, count: 0 };
      at.count += events.length;
      appending.set(webhookId, at);
      return { key: groupJobKey(webhookId, due, at.sequence), events };
    });
  }

  function write(): Promise<void> {
    timer = undefined;
    const rows = buffered;
    buffered = [];
    if (rows.length === 0) return writing;
    const due = dueAt(now());
    const groups = keyed(groupDeliveries(rows), due);
    writing = writing.then(() =>
      deps.queue.enqueueGroups(groups, new Date(due)).catch(async (queueError: unknown) => {
        log.warn(`the job queue did not take ${rows.length} webhook event(s); keeping them in the outbox`, queueError);
        try {
          await deps.db.insert(webhookOutbox).values(rows.map(({ attempt: _attempt, data, ...row }) => ({ ...row, data: JSON.stringify(data) })));
          deps.onOutbox();
        } catch (error) {
          log.warn(`could not keep ${rows.length} webhook event(s) in the outbox either; trying again`, error);
          buffered = [...rows, ...buffered];
          timer ??= setTimeout(write, 1_000);
        }
      }),
    );
    return writing;
  }

  return {
    name: "webhooks",
    async emit(userId, event, subject) {
      const hooks = await readStatements(deps.db).all(statements(deps.db).subscribed, { userId });
      const targets = hooks.filter((hook) => (JSON.parse(hook.events) as string[]).includes(event.type));
      if (targets.length === 0) return;
      const data = await readEventData(deps.db, userId, event, subject, deps.graphSettings);
      if (!data) return;
      const eventId = newEventId();
      const timestamp = new Date(now()).toISOString();
      for (const hook of targets) buffered.push({ webhookId: hook.id, userId, eventId, type: event.type, timestamp, data, attempt: 1 });
      timer ??= setTimeout(write, OUTBOX_GROUP_MS);
    },
    async flush() {
      clearTimeout(timer);
      await write();
    },
  };
}
