import { afterAll } from "bun:test";
import { webhookQueueOn } from "../../src/jobs/catalogue";
import { keepConnections } from "../../src/modules/imports/safe-fetch/kept-connections";
import { createSafePoster } from "../../src/modules/imports/safe-fetch/post-json";
import type { DeliveryRun } from "../../src/modules/webhooks/deliver";
import { jobQueueForThisFile } from "./job-queue";
import { notesDatabaseForThisFile } from "./notes-database";
import { startWebhookReceiver } from "./webhook-receiver";

/**
 * What a delivery job runs against, for this file's tests: a notes database whose user 1 is alice,
 * the real queue over it, a receiver on loopback (allowed as a private address), and the run the
 * worker gives a job, its clock fixed at `now`. Call it at the top of a test file; all is closed
 * once the file's tests are done.
 */
export async function webhookDeliveryForThisFile(options: { now: number; retryDelaysMs: readonly number[]; keepConnections?: boolean }) {
  const database = await notesDatabaseForThisFile();
  await database.client.execute("insert into users (username, username_key, password_hash, created_at) values ('alice', 'alice', 'x', 0)");
  const queue = await jobQueueForThisFile(database.db, { allowPrivateNetworks: true });
  const receiver = startWebhookReceiver();
  afterAll(() => receiver.stop());
  const run: DeliveryRun = {
    db: database.db,
    post: createSafePoster({ allowPrivateNetworks: true, timeoutMs: 10_000, maxRedirects: 0 }),
    ...(options.keepConnections && { keepConnections }),
    queue: webhookQueueOn(queue),
    retryDelaysMs: options.retryDelaysMs,
    now: () => options.now,
  };
  return { database, queue, receiver, run };
}
