// The API as createHttpApp builds it, on loopback, with its pieces in the test's hands: the router,
// the event feed's clock and keep-alive, the request deadline and the server's idle timeout. Its
// services are real: a notes database of its own and the job queue on a database of its own.
import type { AnyRouter } from "@trpc/server";
import type { NotesDatabase } from "../../src/db/client";
import { createHttpApp } from "../../src/http/app";
import { buildOpenApiDocument } from "../../src/http/openapi-document";
import { graphQueueOn, importQueueOn } from "../../src/jobs/catalogue";
import { createSecretBox } from "../../src/modules/auth/secret-box";
import { ChangeFeed } from "../../src/modules/events/change-feed";
import type { Clock } from "../../src/modules/events/coalescer";
import { appRouter } from "../../src/trpc/root";
import { Api } from "./api";
import { unheardChanges } from "./changes";
import { LOCAL_GRAPH, openJobQueue } from "./job-queue";
import { openTemporaryNotesDatabase } from "./notes-database";
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
  const notes = await openTemporaryNotesDatabase("rhizome-app-");
  const feed = new ChangeFeed({ db: notes.db, graphSettings: LOCAL_GRAPH, keepAliveMs: options.keepAliveMs, clock: options.clock });
  const queue = openJobQueue(notes.db, await freshQueueDatabase());
  await queue.migrate();
  const router = options.router ?? appRouter;
  const app = createHttpApp({
    router,
    services: {
      db: notes.db,
      secretBox: await createSecretBox({ dataDir: notes.dir }),
      importQueue: importQueueOn(queue),
      graphQueue: graphQueueOn(queue),
      changes: unheardChanges,
      graphSettings: LOCAL_GRAPH,
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
      notes.remove();
    },
  };
}
