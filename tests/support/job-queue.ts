import { afterAll } from "bun:test";
import type { Database } from "../../src/db/client";
import { createJobCatalogue } from "../../src/jobs/catalogue";
import { silentLog } from "../../src/jobs/log";
import { createQueue } from "../../src/jobs/queue";
import type { ExtractorSettings } from "../../src/modules/graph/create-extractor";
import { unheardChanges } from "./changes";
import { freshQueueDatabase } from "./postgres";

/** The graph settings of a server with no LLM configured: the local extractor. */
export const LOCAL_GRAPH: ExtractorSettings = { extractor: "local", llmConcurrency: 1, anthropic: {} };

export interface JobQueueOptions {
  allowPrivateNetworks?: boolean;
  graph?: ExtractorSettings;
  connectTimeoutMs?: number;
}

/** The service's job queue on `connectionString`, with its whole task catalogue over the notes database `db`; not yet migrated, close it after. */
export function openJobQueue(db: Database, connectionString: string, options: JobQueueOptions = {}) {
  return createQueue({
    connectionString,
    tasks: createJobCatalogue({ db, imports: { allowPrivateNetworks: options.allowPrivateNetworks ?? false }, graph: options.graph ?? LOCAL_GRAPH, changes: unheardChanges }),
    log: silentLog,
    ...(options.connectTimeoutMs !== undefined && { connectTimeoutMs: options.connectTimeoutMs }),
  });
}

/**
 * openJobQueue on a new database of the test run's Postgres, migrated, and closed once this file's
 * tests are done. Call it at the top of a test file, where Bun registers the close for the whole
 * file; inside a hook Bun runs it too early.
 */
export async function jobQueueForThisFile(db: Database, options: JobQueueOptions = {}) {
  const queue = openJobQueue(db, await freshQueueDatabase(), options);
  afterAll(() => queue.close());
  await queue.migrate();
  return queue;
}
