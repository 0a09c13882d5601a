// A group job (the first attempts of several events at one webhook) against a real notes database,
// the real queue and a loopback receiver: one failure is retried alone under its webhook-id, a run
// again skips what the log shows sent, and a receiver that stops answering hands the rest back.
import { expect, test } from "bun:test";
import net from "node:net";
import { asc, eq } from "drizzle-orm";
import { webhookDeliveries, webhooks } from "../../../src/db/schema";
import { createSafePoster } from "../../../src/modules/imports/safe-fetch/post-json";
import { deliverWebhookEvent } from "../../../src/modules/webhooks/deliver";
import { deliverWebhookGroup } from "../../../src/modules/webhooks/deliver-group";
import { createWebhook } from "../../../src/modules/webhooks/manage-webhooks";
import { deliveryJobKey, type DeliveryGroup } from "../../../src/modules/webhooks/webhook-queue";
import { sessionCredential } from "../../support/credentials";
import { webhookDeliveryForThisFile } from "../../support/webhook-delivery";

const NOW = Date.UTC(2026, 10, 27, 12);
const HOUR = 3_600_000;
const { database, queue, receiver, run } = await webhookDeliveryForThisFile({ now: NOW, retryDelaysMs: [HOUR, 6 * HOUR], keepConnections: true });

let made = 0;
async function groupOf(count: number, url?: string) {
  const name = `/group${++made}`;
  const hook = await createWebhook({ ctx: { db: database.db, userId: 1, credential: sessionCredential(1) }, input: { url: url ?? `${receiver.origin}${name}`, events: ["note.created"] } });
  receiver.secrets.set(name, hook.secret);
  const events: DeliveryGroup = Array.from({ length: count }, (_, i) => ({ webhookId: hook.id, userId: 1, eventId: `msg_g${made}e${i}`, type: "note.created", timestamp: new Date(NOW).toISOString(), data: { id: i + 1, title: `Note ${i + 1}` } }));
  const group = { events };
  return { hook, group, path: name };
}
const logOf = async (webhookId: number) => database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId)).orderBy(asc(webhookDeliveries.id));

test("a group is sent in order, one signed request per event; the one event a receiver answers 500 is retried alone, under its webhook-id", async () => {
  const { hook, group, path: at } = await groupOf(4);
  const failing = group.events[1]!.eventId;
  receiver.answer = (delivery) => (delivery.id === failing ? 500 : 200);
  // The real clock: the receiver checks each signature's timestamp is recent.
  const live = { ...run, now: undefined };
  await deliverWebhookGroup(live, group.events, { rerun: false });

  const sent = receiver.received.filter((delivery) => delivery.path === at);
  expect(sent.map((delivery) => delivery.id)).toEqual(group.events.map((event) => event.eventId));
  for (const delivery of sent) expect(delivery.verifyError).toBeNull();
  expect(sent.map((delivery) => delivery.json.data.title)).toEqual(["Note 1", "Note 2", "Note 3", "Note 4"]);
  // All four logged as first attempts, in one go; the failure marks the webhook failing, though it succeeded after.
  expect((await logOf(hook.id)).map((row) => [row.eventId, row.attempt, row.statusCode])).toEqual(group.events.map((event) => [event.eventId, 1, event.eventId === failing ? 500 : 200]));
  expect((await database.db.select().from(webhooks).where(eq(webhooks.id, hook.id)))[0]!.failingSince).toBeNull();

  // Only the failed event has a next attempt queued, a single delivery after the first delay.
  const retry = await queue.findJob(deliveryJobKey(hook.id, failing));
  expect(retry).toMatchObject({ taskName: "webhook-delivery" });
  const failedAt = (await logOf(hook.id)).find((row) => row.eventId === failing)!.createdAt;
  expect(retry!.runAt.getTime()).toBe(failedAt + HOUR);
  for (const event of group.events.filter((event) => event.eventId !== failing)) expect(await queue.findJob(deliveryJobKey(hook.id, event.eventId))).toBeNull();

  // That attempt goes out with the same webhook-id and body, newly signed.
  receiver.answer = () => 200;
  await deliverWebhookEvent(live, { ...group.events[1]!, webhookId: hook.id, userId: 1, attempt: 2 });
  const again = receiver.received.filter((delivery) => delivery.path === at && delivery.id === failing);
  expect(again).toHaveLength(2);
  expect(again[1]!.body).toBe(again[0]!.body);
  expect(again[1]!.verifyError).toBeNull();
  expect((await logOf(hook.id)).at(-1)).toMatchObject({ eventId: failing, attempt: 2, statusCode: 200, error: null });
});

test("a group run again (its worker died) skips the events the log shows sent, and sends the rest", async () => {
  const { hook, group, path: at } = await groupOf(3);
  receiver.answer = () => 200;
  // The first run got as far as the first two events (as a run cut by a shutdown settles what it sent).
  await deliverWebhookGroup(run, group.events.slice(0, 2), { rerun: false });
  await deliverWebhookGroup(run, group.events, { rerun: true });
  const sent = receiver.received.filter((delivery) => delivery.path === at).map((delivery) => delivery.id);
  expect(sent).toEqual(group.events.map((event) => event.eventId));
  expect((await logOf(hook.id)).map((row) => row.eventId)).toEqual(sent);
});

test("a receiver that gives no answer stops the group: the events not yet sent are handed back as single first attempts", async () => {
  // A port nothing listens on: the first attempt is refused.
  const closed = await new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
  const { hook, group } = await groupOf(3, `http://127.0.0.1:${closed}/gone`);
  await deliverWebhookGroup(run, group.events, { rerun: false });
  const logged = await logOf(hook.id);
  expect(logged).toHaveLength(1);
  expect(logged[0]).toMatchObject({ eventId: group.events[0]!.eventId, attempt: 1, statusCode: null });
  expect(logged[0]!.error).toContain("refused");
  expect((await queue.findJob(deliveryJobKey(hook.id, group.events[0]!.eventId)))!.runAt.getTime()).toBe(NOW + HOUR);
  for (const event of group.events.slice(1)) {
    const single = await queue.findJob(deliveryJobKey(hook.id, event.eventId));
    expect(single).toMatchObject({ taskName: "webhook-delivery", attempts: 0 });
  }
});

test("an event a group carries twice (moved again by the outbox relay, appended to its own job) is sent once", async () => {
  const { hook, group, path: at } = await groupOf(2);
  receiver.answer = () => 200;
  await deliverWebhookGroup(run, [...group.events, ...group.events], { rerun: false });
  expect(receiver.received.filter((delivery) => delivery.path === at).map((delivery) => delivery.id)).toEqual(group.events.map((event) => event.eventId));
  expect(await logOf(hook.id)).toHaveLength(2);
});

test("with an HTTP_PROXY in the environment, a group still goes straight to the receiver (over node:http, kept alive), as every other request does", async () => {
  const saved = process.env.HTTP_PROXY;
  process.env.HTTP_PROXY = "http://127.0.0.1:9"; // nothing listens there
  try {
    const post = createSafePoster({ allowPrivateNetworks: true, timeoutMs: 10_000, maxRedirects: 0 });
    const { hook, group, path: at } = await groupOf(3);
    receiver.answer = () => 200;
    await deliverWebhookGroup({ ...run, post, now: undefined }, group.events, { rerun: false });
    const sent = receiver.received.filter((delivery) => delivery.path === at);
    expect(sent.map((delivery) => delivery.id)).toEqual(group.events.map((event) => event.eventId));
    for (const delivery of sent) expect(delivery.verifyError).toBeNull();
    expect((await logOf(hook.id)).map((row) => row.statusCode)).toEqual([200, 200, 200]);
  } finally {
    if (saved === undefined) delete process.env.HTTP_PROXY;
    else process.env.HTTP_PROXY = saved;
  }
});
