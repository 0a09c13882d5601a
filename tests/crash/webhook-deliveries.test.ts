// kill -9 of the worker between delivery attempts: every event still arrives, under its own
// webhook-id, once a new worker runs. The API process (ROLE=api) only queues; workers deliver.
import { afterAll, expect, test } from "bun:test";
import path from "node:path";
import { Api } from "../support/api";
import { serverForThisFile } from "../support/server";
import { until } from "../support/until";
import { webhookJobs } from "../support/webhook-jobs";
import { startWebhookReceiver } from "../support/webhook-receiver";

const EVENTS = 6;
const ENTRY = path.resolve(import.meta.dir, "../../src/main.ts");
/** Far longer than any test step: the kill lands while every retry waits in the queue, which the test then makes due. */
const RETRY_DELAYS = "1h,1h";

const receiver = startWebhookReceiver();
afterAll(() => receiver.stop());
const { server: api } = await serverForThisFile({ ROLE: "api", IMPORT_ALLOW_PRIVATE_NETWORKS: "true", WEBHOOK_RETRY_DELAYS: RETRY_DELAYS });

function startWorker() {
  return Bun.spawn([process.execPath, "run", ENTRY], {
    env: {
      ...process.env,
      ROLE: "worker",
      DATA_DIR: api.dataDir,
      DATABASE_URL: api.databaseUrl,
      IMPORT_ALLOW_PRIVATE_NETWORKS: "true",
      WEBHOOK_RETRY_DELAYS: RETRY_DELAYS,
      LOG_LEVEL: "warn",
    },
    stdout: "ignore",
    stderr: "inherit",
  });
}

test("kill -9 of the worker between attempts loses no event: each arrives after a restart, with the webhook-id of its first attempt", async () => {
  const { api: alice } = await new Api(api.url).newUser("crash-hooks");
  const hook = (await alice.post("/api/webhooks", { url: `${receiver.origin}/crash`, events: ["note.created"] })).body;
  receiver.secrets.set("/crash", hook.secret);
  // Every event's first attempt fails; later ones succeed.
  receiver.answer = (delivery) => (receiver.received.filter((seen) => seen.id === delivery.id).length === 1 ? 500 : 200);

  const queue = webhookJobs(api.databaseUrl);
  const first = startWorker();
  try {
    for (let i = 0; i < EVENTS; i++) expect((await alice.post("/api/notes", { title: `Crash ${i}`, content: "" })).status).toBe(201);
    // Every event's first attempt failed and was logged (after its retry was queued), and each retry waits in the queue.
    await until(async () => (await alice.get(`/api/webhooks/${hook.id}/deliveries?size=100`)).body.total, {
      timeoutMs: 40_000,
      what: "every event's first (failed) attempt logged",
      done: (total) => total === EVENTS,
    });
    const retries = await queue.of(hook.id);
    const firstAttempts = new Set(receiver.received.map((delivery) => delivery.id));
    expect(firstAttempts.size).toBe(EVENTS);
    expect(receiver.received).toHaveLength(EVENTS);
    expect(retries.filter((job) => job.key.startsWith(`webhook:${hook.id}:`) && !job.locked && job.runAt.getTime() > Date.now()).map((job) => job.key.split(":")[2]).sort()).toEqual([...firstAttempts].sort());
    first.kill("SIGKILL");
    await first.exited;

    // The hour's wait, passed: the retries the dead worker left are due for the next one.
    await queue.dueNow(retries.filter((job) => job.key.startsWith(`webhook:${hook.id}:`)).map((job) => job.id));
    const second = startWorker();
    try {
      const delivered = await until(() => receiver.received.filter((delivery) => delivery.json.type === "note.created" && receiver.received.indexOf(delivery) >= EVENTS), {
        timeoutMs: 40_000,
        what: "every event delivered after the restart",
        done: (retries) => new Set(retries.map((delivery) => delivery.id)).size === EVENTS,
      });
      expect(new Set(delivered.map((delivery) => delivery.id))).toEqual(firstAttempts);
      expect(delivered.map((delivery) => delivery.json.data.title).sort()).toEqual([...Array(EVENTS).keys()].map((i) => `Crash ${i}`).sort());
      for (const delivery of receiver.received) expect(delivery.verifyError).toBeNull();
    } finally {
      second.kill("SIGTERM");
      await second.exited;
    }
  } finally {
    first.kill("SIGKILL");
    await queue.close();
  }
}, 120_000);

test("kill -9 of the worker in the middle of a group loses no event: the group runs again on the next worker, at least once each", async () => {
  const { api: bob } = await new Api(api.url).newUser("crash-groups");
  const hook = (await bob.post("/api/webhooks", { url: `${receiver.origin}/crash-group`, events: ["note.created"] })).body;
  receiver.secrets.set("/crash-group", hook.secret);
  // The third request to arrive, and every one after it, hangs until the worker is gone.
  let hang = true;
  const onPath = () => receiver.received.filter((delivery) => delivery.path === "/crash-group");
  receiver.answer = (delivery) => (delivery.path === "/crash-group" && hang && onPath().length >= 3 ? new Promise<number>(() => {}) : 200);

  const first = startWorker();
  try {
    // Written together, so their events fall in one group (or a few) of the outlet.
    const titles = [...Array(EVENTS).keys()].map((i) => `Group ${i}`);
    for (const response of await Promise.all(titles.map((title) => bob.post("/api/notes", { title, content: "" })))) expect(response.status).toBe(201);
    await until(() => onPath().length, { timeoutMs: 40_000, what: "the group's third request, hanging", done: (count) => count >= 3 });
    const before = new Set(onPath().map((delivery) => delivery.id));
    expect(before.size).toBeLessThan(EVENTS); // the kill lands mid-group: some events were never sent
    first.kill("SIGKILL");
    await first.exited;
    hang = false;

    const second = startWorker();
    try {
      const delivered = await until(() => new Set(onPath().filter((delivery) => delivery.json.type === "note.created").map((delivery) => delivery.json.data.title as string)), {
        timeoutMs: 40_000,
        what: "every event of the group delivered after the restart",
        done: (seen) => seen.size === EVENTS,
      });
      expect([...delivered].sort()).toEqual(titles.sort());
      // One webhook-id per event, kept by any event sent twice.
      const idsByTitle = new Map<string, Set<string>>();
      for (const delivery of onPath()) idsByTitle.set(delivery.json.data.title, (idsByTitle.get(delivery.json.data.title) ?? new Set()).add(delivery.id));
      for (const ids of idsByTitle.values()) expect(ids.size).toBe(1);
      for (const delivery of onPath()) expect(delivery.verifyError).toBeNull();
    } finally {
      second.kill("SIGTERM");
      await second.exited;
    }
  } finally {
    first.kill("SIGKILL");
  }
}, 120_000);
