import type { Config } from "./config";
import { openNotesDatabase } from "./db/client";
import { createHttpApp } from "./http/app";
import { buildOpenApiDocument } from "./http/openapi-document";
import { createJobCatalogue, graphQueueOn, importQueueOn } from "./jobs/catalogue";
import { createQueue, type JobWorker } from "./jobs/queue";
import { log } from "./log";
import { createSecretBox } from "./modules/auth/secret-box";
import { reconcileGraphBuilds } from "./modules/graph/reconcile-builds";
import { reconcileImportTasks } from "./modules/imports/reconcile-tasks";
import { appRouter } from "./trpc/root";

const RECONCILE_EVERY_MS = 60_000;

export interface RunningServer {
  /** Empty for a worker-only process. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts what `ROLE` asks for on shared stores: the notes database (migrated), the queue's
 * Postgres (DATABASE_URL, or an embedded one under DATA_DIR/pg), then the HTTP API and/or a worker
 * with its reconciler. `stop()` drains in reverse order.
 */
export async function startServer(config: Config): Promise<RunningServer> {
  const stops: (() => Promise<void> | void)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step();
  };
  try {
    const notesDb = await openNotesDatabase({ url: config.libsqlUrl, authToken: config.libsqlAuthToken });
    stops.push(() => notesDb.close());

    let connectionString = config.databaseUrl;
    if (!connectionString) {
      const { startEmbeddedPostgres } = await import("./jobs/embedded-postgres");
      const postgres = await startEmbeddedPostgres({ dataDir: config.dataDir, log });
      stops.push(() => postgres.stop());
      connectionString = postgres.connectionString;
    }
    const queue = createQueue({ connectionString, tasks: createJobCatalogue({ db: notesDb.db, imports: config.imports, graph: config.graph }), log });
    stops.push(() => queue.close());
    // Workers keep the queue's schema current; an API process only creates it on a fresh database.
    await (config.role === "api" ? queue.migrateIfMissing() : queue.migrate());
    const importQueue = importQueueOn(queue);
    const graphQueue = graphQueueOn(queue);

    if (config.role !== "api") {
      const worker: JobWorker = await queue.startWorker({ concurrency: config.worker.concurrency });
      const reconcile = () =>
        Promise.all([reconcileImportTasks(notesDb.db, importQueue), reconcileGraphBuilds(notesDb.db, graphQueue)]).catch((error) =>
          log.warn("reconciler failed", error),
        );
      await reconcile();
      const timer = setInterval(reconcile, RECONCILE_EVERY_MS);
      stops.push(async () => {
        clearInterval(timer);
        await worker.stop();
      });
      log.info(`worker ${worker.id} running ${config.worker.concurrency} job(s) at a time`);
    }

    if (config.role === "worker") return { url: "", port: 0, stop };

    const secretBox = await createSecretBox({ secretKey: config.secretKey, dataDir: config.dataDir });
    const app = createHttpApp({
      router: appRouter,
      services: { db: notesDb.db, secretBox, importQueue, graphQueue },
      document: buildOpenApiDocument(appRouter),
      checkHealth: async () => {
        await notesDb.client.execute("select 1");
        await queue.ping();
      },
    });
    app.listen({ port: config.port, hostname: config.host });
    stops.push(async () => {
      await app.stop();
    });
    const port = app.server!.port!;
    const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
    log.info(`Rhizome API listening on ${url} (docs at ${url}/docs)`);
    return { url, port, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
