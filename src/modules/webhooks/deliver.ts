import type { KeyObject } from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { batchStep, preparedPerDatabase } from "../../db/prepared";
import { readStatements } from "../../db/read-statements";
import { relaxedWriteBatches } from "../../db/write-batches";
import { accessTokens, webhookDeliveries, webhooks } from "../../db/schema";
import { log } from "../../log";
import { ImportError } from "../imports/import-error";
import type { KeptConnections } from "../imports/safe-fetch/kept-connections";
import type { Poster } from "../imports/safe-fetch/post-json";
import { signDelivery, signingKey } from "./signature";
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
  /** Keeps connections open across a group's deliveries (safe-fetch's keepConnections); without it, one connection each. */
  keepConnections?: () => KeptConnections;
  signal?: AbortSignal;
  now?: () => number;
}

export type WebhookRow = typeof webhooks.$inferSelect;

/** What one attempt came to, as the delivery log records it. */
export interface AttemptOutcome {
  payload: DeliveryPayload;
  statusCode: number | null;
  /** Null on success (a 2xx). */
  error: string | null;
  started: number;
  finished: number;
}

const statements = preparedPerDatabase((db) => ({
  // Every delivery job reads its webhook and the token it is bound to: a statement SQLite keeps prepared.
  webhook: db
    .select({ hook: webhooks, token: { id: accessTokens.id, expiresAt: accessTokens.expiresAt } })
    .from(webhooks)
    .leftJoin(accessTokens, eq(accessTokens.id, webhooks.tokenId))
    .where(and(eq(webhooks.id, sql.placeholder("webhookId")), eq(webhooks.userId, sql.placeholder("userId"))))
    .prepare(),
  // One row of the log, run once per attempt in one transaction; built once.
  logRow: db
    .insert(webhookDeliveries)
    .values({
      webhookId: sql.placeholder("webhookId"),
      eventId: sql.placeholder("eventId"),
      type: sql.placeholder("type"),
      attempt: sql.placeholder("attempt"),
      statusCode: sql.placeholder("statusCode"),
      durationMs: sql.placeholder("durationMs"),
      error: sql.placeholder("error"),
      createdAt: sql.placeholder("createdAt"),
    })
    .prepare(),
}));

/**
 * The webhook, when it still exists, is its user's and is turned on; else nothing more is sent. One
 * set up by an access token carries what that token may read, so only while the token lives: once
 * it is revoked or has expired, the webhook is turned off, with the reason, until its owner turns it on again.
 */
export async function deliverableWebhook(db: Database, webhookId: number, userId: number, now = Date.now()): Promise<WebhookRow | null> {
  const row = await readStatements(db).get(statements(db).webhook, { webhookId, userId });
  if (!row?.hook.enabled) return null;
  const { hook, token } = row;
  if (hook.tokenId === null || (token && (token.expiresAt === null || token.expiresAt > now))) return hook;
  const reason = `Disabled on ${new Date(now).toISOString()}: the access token that set it up was revoked or expired; turn it on again to keep it`;
  await db
    .update(webhooks)
    .set({ enabled: false, disabledReason: reason, updatedAt: now })
    .where(and(eq(webhooks.id, hook.id), eq(webhooks.tokenId, hook.tokenId), eq(webhooks.enabled, true)));
  log.info(`webhook ${hook.id} of user ${userId} turned off: its access token is gone`);
  return null;
}

/**
 * One attempt of one event at one webhook (a job). Each attempt is recorded; a failure queues the
 * next attempt after its delay (the same `webhook-id` and body, a fresh timestamp and signature),
 * and turns the webhook off once its deliveries have all failed for 3 days. The attempt's outcome
 * is the job's own success: only a crash runs the job again (delivery is at least once).
 */
export async function deliverWebhookEvent(run: DeliveryRun, payload: DeliveryPayload): Promise<void> {
  const hook = await deliverableWebhook(run.db, payload.webhookId, payload.userId, run.now?.());
  if (!hook) return;
  const outcome = await attemptDelivery(run, hook, signingKey(hook.secret), payload);
  await settleAttempts(run, hook, [outcome]);
}

/**
 * POSTs one event, signed for this attempt. Failures are outcomes, not errors; only a cut by the
 * run's signal (a graceful shutdown) throws, so the job runs again on the next worker.
 */
export async function attemptDelivery(run: DeliveryRun, hook: WebhookRow, key: KeyObject, payload: DeliveryPayload, connections?: KeptConnections): Promise<AttemptOutcome> {
  const now = run.now ?? Date.now;
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
        "webhook-signature": signDelivery(key, payload.eventId, timestamp, body),
      },
      body,
      signal: run.signal,
      ...(connections && { connections }),
    });
    statusCode = answer.status;
    if (statusCode < 200 || statusCode > 299) error = `HTTP ${statusCode}`;
  } catch (caught) {
    if (run.signal?.aborted) throw caught;
    error = caught instanceof ImportError ? (caught.reason ?? "the request failed") : "the request failed";
    if (!(caught instanceof ImportError)) log.warn(`webhook ${hook.id}: a delivery failed unexpectedly`, caught);
  }
  return { payload, statusCode, error, started, finished: now() };
}

/**
 * After a run of attempts at one webhook (one, or a group's, in the order made): the failure
 * record, the 3-day rule, the next attempt of each failure, the events handed back to be sent
 * singly, and last the log, in one insert. The log comes after the queueing on purpose: a group run
 * again after a crash skips the events it finds logged, so a logged failure must already have its
 * retry queued.
 */
export async function settleAttempts(run: DeliveryRun, hook: WebhookRow, outcomes: AttemptOutcome[], handBack: DeliveryPayload[] = []): Promise<void> {
  if (outcomes.length === 0) return;
  const finished = outcomes.at(-1)!.finished;
  const lastSuccess = outcomes.findLastIndex((outcome) => outcome.error === null);
  const failures = outcomes.slice(lastSuccess + 1);
  let disabled = false;
  if (failures.length === 0) {
    if (hook.failingSince !== null) await run.db.update(webhooks).set({ failingSince: null }).where(eq(webhooks.id, hook.id));
  } else {
    // Failing since the first failure after the last success; with no success in the run, since before it, if it was failing already.
    const since = failures[0]!.started;
    const [failing] = await run.db
      .update(webhooks)
      .set({ failingSince: lastSuccess >= 0 ? since : sql`coalesce(${webhooks.failingSince}, ${since})` })
      .where(eq(webhooks.id, hook.id))
      .returning({ failingSince: webhooks.failingSince });
    const lastError = failures.at(-1)!.error;
    if (failing?.failingSince != null && finished - failing.failingSince >= DISABLE_AFTER_MS) {
      const reason = `Disabled on ${new Date(finished).toISOString()}: every delivery failed for 3 days (last: ${lastError})`;
      await run.db
        .update(webhooks)
        .set({ enabled: false, disabledReason: reason, updatedAt: finished })
        .where(and(eq(webhooks.id, hook.id), eq(webhooks.enabled, true), isNull(webhooks.disabledReason)));
      log.warn(`webhook ${hook.id} of user ${hook.userId} disabled after 3 days of failed deliveries`);
      disabled = true;
    }
  }
  if (!disabled) {
    for (const outcome of outcomes) {
      if (outcome.error === null) continue;
      const delay = run.retryDelaysMs[outcome.payload.attempt - 1];
      if (delay === undefined) continue; // every attempt spent: the log shows them all
      await run.queue.enqueueDelivery({ ...outcome.payload, attempt: outcome.payload.attempt + 1 }, new Date(outcome.finished + delay));
    }
    if (handBack.length > 0) await run.queue.enqueueDeliveries(handBack);
  }
  // One transaction, without waiting for the disk: a synced commit would stall the API sharing this process (see relaxedWriteBatches).
  const logRow = statements(run.db).logRow;
  await relaxedWriteBatches(run.db).run(
    outcomes.map(({ payload, statusCode, error, started, finished: at }) =>
      batchStep(logRow, {
        webhookId: hook.id,
        eventId: payload.eventId,
        type: payload.type,
        attempt: payload.attempt,
        statusCode,
        durationMs: Math.max(0, at - started),
        error,
        createdAt: at,
      }).statement,
    ),
  );
}
