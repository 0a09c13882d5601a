// When the job queue's Postgres does not answer, webhook events wait in the outbox of the notes
// database, and the relay moves them into the queue once it does: none is lost.
import { afterAll, beforeAll, expect, test } from "bun:test";
import pg from "pg";
import { webhookOutbox } from "../../../src/db/schema";
import { webhookQueueOn } from "../../../src/jobs/catalogue";
import { SCHEMA } from "../../../src/jobs/graphile-internals";
import { setLogLevel } from "../../../src/log";
import { createWebhook } from "../../../src/modules/webhooks/manage-webhooks";
import { startOutboxRelay } from "../../../src/modules/webhooks/outbox-relay";
import { createWebhookOutlet } from "../../../src/modules/webhooks/outlet";
import { sessionCredential } from "../../support/credentials";
import { freshQueueDatabase } from "../../support/postgres";
import { until } from "../../support/until";
import { notesDatabaseForThisFile } from "../../support/notes-database";
import { LOCAL_GRAPH, openJobQueue } from "../../support/job-queue";

const graph = LOCAL_GRAPH;
const database = await notesDatabaseForThisFile();
const queues: ReturnType<typeof openJobQueue>[] = [];
const queueOn = (connectionString: string) => {
  const queue = openJobQueue(database.db, connectionString, { allowPrivateNetworks: true, connectTimeoutMs: 2_000 });
  queues.push(queue);
  return queue;
};

beforeAll(async () => {
  setLogLevel("silent");
  await database.client.execute("insert into users (username, username_key, password_hash, created_at) values ('alice', 'alice', 'x', 0), ('bob', 'bob', 'x', 0)");
});
afterAll(async () => {
  for (const queue of queues) await queue.close();
});

test("events the queue does not take are kept in the outbox, then relayed once it answers, under their first webhook-id", async () => {
  const hook = await createWebhook({ ctx: { db: database.db, userId: 1, credential: sessionCredential(1) }, input: { url: "https://hooks.example.com/in", events: ["note.created", "note.updated"] } });
  await createWebhook({ ctx: { db: database.db, userId: 2, credential: sessionCredential(2) }, input: { url: "https://hooks.example.com/bob", events: ["note.created"] } });
  // Nothing listens on port 1: every enqueue fails at once.
  const down = webhookQueueOn(queueOn("postgres://nobody@127.0.0.1:1/none"));
  let outboxed = 0;
  const outlet = createWebhookOutlet({ db: database.db, queue: down, graphSettings: graph, onOutbox: () => outboxed++ });
  for (let id = 1; id <= 3; id++) await outlet.emit(1, { type: "note.created", data: { id, title: `Note ${id}` } }, { kind: "note", id });
  await outlet.emit(1, { type: "note.deleted", data: { id: 1 } }, { kind: "note", id: 1 }); // not subscribed
  await outlet.flush();
  const waiting = await database.db.select().from(webhookOutbox);
  expect(outboxed).toBe(1);
  expect(waiting).toHaveLength(3);
  expect(waiting.every((row) => row.webhookId === hook.id && row.userId === 1 && row.type === "note.created")).toBe(true);
  expect(new Set(waiting.map((row) => row.eventId)).size).toBe(3);

  const upDatabase = await freshQueueDatabase();
  const upQueue = queueOn(upDatabase);
  await upQueue.migrate();
  const relay = startOutboxRelay({ db: database.db, queue: webhookQueueOn(upQueue), sweepMs: 100 });
  try {
    await until(async () => (await database.db.select().from(webhookOutbox)).length === 0, { what: "the outbox emptied" });
    // One group job for the webhook, carrying the three events in the order they happened.
    const job = await upQueue.findJob(`webhook-group:${hook.id}:${waiting[0]!.eventId}`);
    expect(job?.taskName).toBe("webhook-delivery-group");
    const client = new pg.Client({ connectionString: upDatabase });
    await client.connect();
    try {
      const { rows } = await client.query<{ payload: { webhookId: number; userId: number; eventId: string }[] }>(`select payload from ${SCHEMA}._private_jobs where id = $1`, [job!.jobId]);
      expect(rows[0]!.payload.every((event) => event.webhookId === hook.id && event.userId === 1)).toBe(true);
      expect(rows[0]!.payload.map((event) => event.eventId)).toEqual(waiting.map((row) => row.eventId));
    } finally {
      await client.end();
    }
  } finally {
    await relay.stop();
  }
});

test("each group of a webhook's events is appended to the one waiting job of its webhook and second, in order", async () => {
  const hook = await createWebhook({ ctx: { db: database.db, userId: 1, credential: sessionCredential(1) }, input: { url: "https://hooks.example.com/appended", events: ["note.created"] } });
  const connectionString = await freshQueueDatabase();
  const queue = queueOn(connectionString);
  await queue.migrate();
  // Due at the next whole second of this clock, far off, so no flush below crosses into another.
  let clock = Date.UTC(2030, 0, 1, 12, 0, 0, 100);
  const outlet = createWebhookOutlet({ db: database.db, queue: webhookQueueOn(queue), graphSettings: graph, onOutbox: () => {}, now: () => clock });
  const ids: number[] = [];
  for (let flush = 0; flush < 3; flush++) {
    for (let i = 0; i < 2; i++) {
      const id = 100 + ids.length;
      ids.push(id);
      await outlet.emit(1, { type: "note.created", data: { id, title: `Appended ${id}` } }, { kind: "note", id });
    }
    await outlet.flush();
    clock += 20;
  }
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const { rows } = await client.query<{ key: string; run_at: Date; payload: { webhookId: number; data: { id: number } }[] }>(
      `select key, run_at, payload from ${SCHEMA}._private_jobs where key like $1`,
      [`webhook-group:${hook.id}:%`],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.run_at.getTime()).toBe(Date.UTC(2030, 0, 1, 12, 0, 1));
    expect(rows[0]!.payload.map((event) => event.data.id)).toEqual(ids);
  } finally {
    await client.end();
  }
});
