// A server's job queue as it holds one webhook's deliveries, read from graphile-worker's `jobs` view:
// what a test waits on instead of guessing how long the worker takes.
import pg from "pg";
import { SCHEMA } from "../../src/jobs/graphile-internals";

export interface WebhookJob {
  id: string;
  key: string;
  runAt: Date;
  /** Taken by a worker and running. */
  locked: boolean;
}

export interface WebhookJobs {
  /** The webhook's jobs still queued or running: its groups of first attempts and its single deliveries (retries). */
  of(webhookId: number): Promise<WebhookJob[]>;
  /** Makes these jobs due now (graphile-worker's `reschedule_jobs`), standing in for the wait before a retry. */
  dueNow(jobIds: string[]): Promise<void>;
  close(): Promise<void>;
}

export function webhookJobs(databaseUrl: string): WebhookJobs {
  const client = new pg.Client({ connectionString: databaseUrl });
  const connected = client.connect();
  return {
    async of(webhookId) {
      await connected;
      // The keys of modules/webhooks/webhook-queue.ts (deliveryJobKey, groupJobKey) and of the outbox relay.
      const { rows } = await client.query<{ id: string; key: string; run_at: Date; locked_at: Date | null }>(
        `select id, key, run_at, locked_at from ${SCHEMA}.jobs where key like $1 or key like $2 order by id`,
        [`webhook:${webhookId}:%`, `webhook-group:${webhookId}:%`],
      );
      return rows.map((row) => ({ id: String(row.id), key: row.key, runAt: row.run_at, locked: row.locked_at !== null }));
    },
    async dueNow(jobIds) {
      await connected;
      await client.query(`select id from ${SCHEMA}.reschedule_jobs($1::bigint[], run_at => now())`, [jobIds]);
    },
    async close() {
      await connected;
      await client.end();
    },
  };
}
