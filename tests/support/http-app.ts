// The API as createHttpApp builds it, on loopback, with its pieces in the test's hands: the router,
// the event feed's clock and keep-alive, the request deadline and the server's idle timeout. Its
// services are real: a notes database of its own and the job queue on a database of its own.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AnyRouter } from "@trpc/server";
import { openNotesDatabase, type NotesDatabase } from "../../src/db/client";
import { createHttpApp } from "../../src/http/app";
import { buildOpenApiDocument } from "../../src/http/openapi-document";
import { createJobCatalogue, graphQueueOn, importQueueOn } from "../../src/jobs/catalogue";
import { silentLog } from "../../src/jobs/log";
import { createQueue } from "../../src/jobs/queue";
import { createSecretBox } from "../../src/modules/auth/secret-box";
import { ChangeFeed } from "../../src/modules/events/change-feed";
import type { Clock } from "../../src/modules/events/coalescer";
import { appRouter } from "../../src/trpc/root";
import { Api } from "./api";
import { unheardChanges } from "./changes";
import { freshQueueDatabase } from "./postgres";

export interface HttpApp {
  url: string;
  api: Api;
  notes: NotesDatabase;
  feed: ChangeFeed;
  stop(): Promise<void>;
}

export async function startHttpApp(
  options: { router?: AnyRouter; clock?: Clock; keepAliveMs?: number; idleTimeout?: number; requestDeadlineMs?: number } = {},
): Promise<HttpApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-app-"));
  const notes = await openNotesDatabase({ url: `file:${path.join(dataDir, "rhizome.db")}` });
  const graphSettings = { extractor: "local" as const, llmConcurrency: 1, anthropic: {} };
  const feed = new ChangeFeed({ db: notes.db, graphSettings, keepAliveMs: options.keepAliveMs, clock: options.clock });
  const queue = createQueue({
    connectionString: await freshQueueDatabase(),
    tasks: createJobCatalogue({ db: notes.db, imports: { allowPrivateNetworks: false }, graph: graphSettings, changes: unheardChanges }),
    log: silentLog,
  });
  await queue.migrate();
  const router = options.router ?? appRouter;
  const app = createHttpApp({
    router,
    services: {
      db: notes.db,
      secretBox: await createSecretBox({ dataDir }),
      importQueue: importQueueOn(queue),
      graphQueue: graphQueueOn(queue),
      changes: unheardChanges,
      graphSettings,
    },
    document: buildOpenApiDocument(router as typeof appRouter),
    checkHealth: async () => {},
    requestDeadlineMs: options.requestDeadlineMs,
    events: feed,
  });
  app.listen({ port: 0, hostname: "127.0.0.1", ...(options.idleTimeout !== undefined && { idleTimeout: options.idleTimeout }) });
  const url = `http://127.0.0.1:${app.server!.port}`;
  return {
    url,
    api: new Api(url),
    notes,
    feed,
    async stop() {
      feed.closeAll();
      await app.stop();
      await queue.close();
      notes.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
