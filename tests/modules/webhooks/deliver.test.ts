// One delivery attempt against a real notes database, the real queue and a loopback receiver: the
// log, the next attempt, and the 3-day rule that turns a failing webhook off.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { openNotesDatabase, type NotesDatabase } from "../../../src/db/client";
import { accessTokens, webhookDeliveries, webhooks } from "../../../src/db/schema";
import { createJobCatalogue, webhookQueueOn } from "../../../src/jobs/catalogue";
import { silentLog } from "../../../src/jobs/log";
import { createQueue } from "../../../src/jobs/queue";
import { createSafePoster } from "../../../src/modules/imports/safe-fetch/post-json";
import { deliverWebhookEvent, DISABLE_AFTER_MS, type DeliveryRun } from "../../../src/modules/webhooks/deliver";
import { createWebhook } from "../../../src/modules/webhooks/manage-webhooks";
import { deliveryJobKey } from "../../../src/modules/webhooks/webhook-queue";
import { DELIVERY_LOG_DAYS, pruneDeliveryLog } from "../../../src/modules/webhooks/prune-deliveries";
import { unheardChanges } from "../../support/changes";
import { sessionCredential, tokenCredential } from "../../support/credentials";
import { freshQueueDatabase } from "../../support/postgres";
import { startWebhookReceiver, type WebhookReceiver } from "../../support/webhook-receiver";

const NOW = Date.UTC(2026, 10, 27, 12);
const HOUR = 3_600_000;
let dir: string;
let database: NotesDatabase;
let receiver: WebhookReceiver;
let queue: ReturnType<typeof createQueue>;
let run: DeliveryRun;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-webhooks-"));
  database = await openNotesDatabase({ url: `file:${path.join(dir, "notes.db")}` });
  await database.client.execute("insert into users (username, username_key, password_hash, created_at) values ('alice', 'alice', 'x', 0)");
  receiver = startWebhookReceiver();
  receiver.answer = () => 500;
  queue = createQueue({
    connectionString: await freshQueueDatabase(),
    tasks: createJobCatalogue({ db: database.db, imports: { allowPrivateNetworks: true }, graph: { extractor: "local", llmConcurrency: 1, anthropic: {} }, changes: unheardChanges }),
    log: silentLog,
  });
  await queue.migrate();
  run = { db: database.db, post: createSafePoster({ allowPrivateNetworks: true, timeoutMs: 10_000, maxRedirects: 0 }), queue: webhookQueueOn(queue), retryDelaysMs: [HOUR, 6 * HOUR], now: () => NOW };
});
afterAll(async () => {
  receiver?.stop();
  await queue?.close();
  database?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

let events = 0;
async function failingWebhook(failingSince: number | null) {
  const hook = await createWebhook({ ctx: { db: database.db, userId: 1, credential: sessionCredential(1) }, input: { url: `${receiver.origin}/unit`, events: ["note.created"] } });
  await database.db.update(webhooks).set({ failingSince }).where(eq(webhooks.id, hook.id));
  const payload = { webhookId: hook.id, userId: 1, eventId: `msg_unit${++events}`, type: "note.created", timestamp: new Date(NOW).toISOString(), data: { id: 1 }, attempt: 1 };
  return { hook, payload };
}
const row = async (id: number) => (await database.db.select().from(webhooks).where(eq(webhooks.id, id)))[0]!;

describe("a failed attempt", () => {
  test("is logged, marks when failing began, and queues the next attempt after the first delay with the same webhook-id", async () => {
    const { hook, payload } = await failingWebhook(null);
    await deliverWebhookEvent(run, payload);
    expect(await row(hook.id)).toMatchObject({ enabled: true, failingSince: NOW, disabledReason: null });
    const logged = await database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id));
    expect(logged).toMatchObject([{ eventId: payload.eventId, attempt: 1, statusCode: 500, error: "HTTP 500" }]);
    expect(JSON.stringify(logged)).not.toContain(hook.secret.slice(6));
    const next = await queue.findJob(deliveryJobKey(hook.id, payload.eventId));
    expect(next?.runAt.getTime()).toBe(NOW + HOUR);
  });

  test("after 3 days of nothing but failures turns the webhook off, with the reason, and queues nothing more", async () => {
    const { hook, payload } = await failingWebhook(NOW - DISABLE_AFTER_MS);
    await deliverWebhookEvent(run, { ...payload, attempt: 2 });
    const after = await row(hook.id);
    expect(after.enabled).toBe(false);
    expect(after.disabledReason).toContain("every delivery failed for 3 days (last: HTTP 500)");
    expect(await queue.findJob(deliveryJobKey(hook.id, payload.eventId))).toBeNull();
    // Turned off, it sends nothing more, even for an event already queued.
    const seen = receiver.received.length;
    await deliverWebhookEvent(run, { ...payload, eventId: "msg_later" });
    expect(receiver.received.length).toBe(seen);
  });

  test("failing for less than 3 days keeps it on; one success clears the failure record", async () => {
    const { hook, payload } = await failingWebhook(NOW - DISABLE_AFTER_MS + HOUR);
    await deliverWebhookEvent(run, payload);
    expect(await row(hook.id)).toMatchObject({ enabled: true, failingSince: NOW - DISABLE_AFTER_MS + HOUR });
    receiver.answer = () => 204;
    await deliverWebhookEvent(run, { ...payload, attempt: 2 });
    expect(await row(hook.id)).toMatchObject({ enabled: true, failingSince: null });
    receiver.answer = () => 500;
  });

  test("the last attempt (every delay spent) queues nothing more", async () => {
    const { hook, payload } = await failingWebhook(null);
    await deliverWebhookEvent(run, { ...payload, attempt: 3 });
    expect(await queue.findJob(deliveryJobKey(hook.id, payload.eventId))).toBeNull();
  });

  test("a redirect is not followed: a 3xx is a failed attempt", async () => {
    const { hook, payload } = await failingWebhook(null);
    receiver.answer = () => 302;
    const before = receiver.received.length;
    await deliverWebhookEvent(run, payload);
    receiver.answer = () => 500;
    expect(receiver.received.length).toBe(before + 1);
    const [logged] = await database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id));
    expect(logged).toMatchObject({ statusCode: 302, error: "HTTP 302" });
  });
});

test("the delivery log keeps 30 days of attempts", async () => {
  const { hook, payload } = await failingWebhook(null);
  await deliverWebhookEvent(run, payload);
  await deliverWebhookEvent({ ...run, now: () => NOW - DELIVERY_LOG_DAYS * 24 * HOUR - 1 }, { ...payload, eventId: "msg_old" });
  const logged = async () => (await database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id))).map((row) => row.eventId);
  expect((await logged()).sort()).toEqual(["msg_old", payload.eventId].sort());
  expect(await pruneDeliveryLog(database.db, NOW)).toBeGreaterThanOrEqual(1);
  expect(await logged()).toEqual([payload.eventId]);
});

describe("a webhook set up by an access token", () => {
  /** A token of alice's that expires at `expiresAt` (null: never), and a webhook it made. */
  async function tokenWebhook(expiresAt: number | null) {
    const [token] = await database.db
      .insert(accessTokens)
      .values({ userId: 1, tokenHash: `hash-${++events}`, name: "script", scopes: '["webhooks","notes:read"]', prefix: "abcdefgh", createdAt: NOW - HOUR, expiresAt })
      .returning({ id: accessTokens.id });
    const credential = tokenCredential(token!.id, ["webhooks", "notes:read"]);
    const hook = await createWebhook({ ctx: { db: database.db, userId: 1, credential }, input: { url: `${receiver.origin}/by-token`, events: ["note.created"] } });
    const payload = { webhookId: hook.id, userId: 1, eventId: `msg_token${events}`, type: "note.created", timestamp: new Date(NOW).toISOString(), data: { id: 1 }, attempt: 1 };
    return { hook, payload };
  }

  test("is sent to while its token lives", async () => {
    const { payload } = await tokenWebhook(NOW + HOUR);
    const before = receiver.received.length;
    await deliverWebhookEvent(run, payload);
    expect(receiver.received.length).toBe(before + 1);
  });

  test("once its token has expired sends nothing, even an event already queued, and is turned off with the reason", async () => {
    const { hook, payload } = await tokenWebhook(NOW - 1);
    const before = receiver.received.length;
    await deliverWebhookEvent(run, payload);
    expect(receiver.received.length).toBe(before);
    expect(await row(hook.id)).toMatchObject({ enabled: false, disabledReason: expect.stringContaining("the access token that set it up was revoked or expired") });
    expect(await queue.findJob(deliveryJobKey(hook.id, payload.eventId))).toBeNull();
  });
});
