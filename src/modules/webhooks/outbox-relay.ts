import { inArray, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { webhookOutbox } from "../../db/schema";
import { log } from "../../log";
import { groupDeliveries, type WebhookQueue } from "./webhook-queue";

/** Rows moved per queue transaction. */
const BATCH = 500;
/** A claim older than this belongs to a relay that died: another takes the rows. */
const CLAIM_EXPIRES_MS = 60_000;
/** How often a relay looks for rows no process poked it about (written by a process that died). */
const SWEEP_MS = 5_000;

export interface OutboxRelay {
  /** Moves waiting events to the queue now (or right after the move under way). */
  poke(): void;
  stop(): Promise<void>;
}

/**
 * Moves events from the libSQL outbox into the job queue in batches: claim (so two processes'
 * relays never move the same rows), queue them in one Postgres transaction (group jobs per webhook,
 * as the outlet does), delete them. A crash between queueing and deleting queues them again a
 * minute later: a delivery is at least once, never lost.
 */
export function startOutboxRelay(deps: { db: Database; queue: WebhookQueue; sweepMs?: number }): OutboxRelay {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  async function moveAll(): Promise<void> {
    while (!stopped) {
      const now = Date.now();
      const claimed = await deps.db.all<{ id: number; webhook_id: number; user_id: number; event_id: string; type: string; timestamp: string; data: string }>(sql`
        update ${webhookOutbox} set claimed_at = ${now}
        where id in (
          select id from ${webhookOutbox}
          where claimed_at is null or claimed_at < ${now - CLAIM_EXPIRES_MS}
          order by id limit ${BATCH})
        returning id, webhook_id, user_id, event_id, type, timestamp, data`);
      if (claimed.length === 0) return;
      claimed.sort((a, b) => a.id - b.id);
      const events = claimed.map((row) => ({
        webhookId: row.webhook_id,
        userId: row.user_id,
        eventId: row.event_id,
        type: row.type,
        timestamp: row.timestamp,
        data: JSON.parse(row.data) as Record<string, unknown>,
        attempt: 1,
      }));
      // Keyed by their first event: moved again after a crash, a group is appended to its own job
      // if that still waits (the group job skips an event it carries twice), else queued anew.
      await deps.queue.enqueueGroups(groupDeliveries(events).map((group) => ({ key: `webhook-group:${group[0]!.webhookId}:${group[0]!.eventId}`, events: group })));
      await deps.db.delete(webhookOutbox).where(inArray(webhookOutbox.id, claimed.map((row) => row.id)));
      if (claimed.length < BATCH) return;
    }
  }

  function poke(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = moveAll()
      .catch((error: unknown) => log.warn("webhook events could not be moved to the job queue yet; retrying", error))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          poke();
        }
      });
  }

  const timer = setInterval(poke, deps.sweepMs ?? SWEEP_MS);
  poke();
  return {
    poke,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
