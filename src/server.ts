import pg from "pg";
import type { Config } from "./config";
import { localPath, openNotesDatabase } from "./db/client";
import { setHistorySettings } from "./modules/history/settings";
import { catchUpSearchIndex } from "./modules/search/index-notes";
import { createHttpApp } from "./http/app";
import { buildOpenApiDocument } from "./http/openapi-document";
import { createFeedFetcher } from "./jobs/feed-tasks";
import type { FeedQueue } from "./modules/feeds/feed-services";
import type { ImportQueue } from "./modules/imports/import-queue";
import { createJobCatalogue, feedQueueOn, graphQueueOn, importQueueOn, ocrQueueOn, semanticQueueOn, webhookQueueOn, type JobCatalogue } from "./jobs/catalogue";
import { createEmbeddingsClient } from "./modules/llm/providers/openai-embeddings";
import type { SemanticQueue } from "./modules/semantic/semantic-queue";
import { createQueue, type JobWorker } from "./jobs/queue";
import { log } from "./log";
import { StartupError, describeCause } from "./startup-error";
import { ensureWritableDirectory } from "./writable-directory";
import { createSecretBox } from "./modules/auth/secret-box";
import { ChangeFeed } from "./modules/events/change-feed";
import { listenForChanges } from "./modules/events/change-listener";
import { createChangePublisher } from "./modules/events/change-publisher";
import { reconcileGraphBuilds } from "./modules/graph/reconcile-builds";
import { reconcileImportTasks } from "./modules/imports/reconcile-tasks";
import { appRouter } from "./trpc/root";
import { sweepStaleTemps } from "./modules/files/blob-store";
import { createWebhookOutlet } from "./modules/webhooks/outlet";
import { createEmbeddingOutlet } from "./modules/semantic/embedding-outlet";
import { startOutboxRelay } from "./modules/webhooks/outbox-relay";
import { createOcrProcess, type OcrProcess } from "./modules/ocr/ocr-process";
import { createOcrOutlet, type OcrQueue } from "./modules/ocr/ocr-queue";
import { QUIET_AFTER_PERSON_MS } from "./modules/ocr/read-note-pictures";

const RECONCILE_EVERY_MS = 60_000;
/** A failed start tears down what it started within this, so the process can exit at once. */
const FAILED_START_CLEANUP_MS = 5_000;
/** A DATABASE_URL whose server never answers fails the start within this instead of hanging. */
const QUEUE_CONNECT_TIMEOUT_MS = 10_000;

export interface RunningServer {
  /** Empty for a worker-only process. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** What a process started from code (a test) may ask beyond the configuration. */
export interface ServerOptions {
  /** Scheduled tasks the worker leaves unscheduled (see WorkerOptions). */
  unscheduled?: readonly JobCatalogue[number]["name"][];
  /** How long after a person's write OCR leaves their note alone (default 30 s). */
  ocrQuietMs?: number;
  /** The OCR process a worker uses (a test's, to count what it reads); stopped with the server. */
  ocrProcess?: OcrProcess;
}

/**
 * Starts what `ROLE` asks for on shared stores: the notes database (migrated), the queue's
 * Postgres (DATABASE_URL, or an embedded one under DATA_DIR/pg), then the HTTP API and/or a worker
 * with its reconciler. `stop()` drains in reverse order.
 */
export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const stops: (() => Promise<void> | void)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step();
  };
  try {
    await ensureWritableDirectory(config.dataDir, "DATA_DIR");
    await ensureWritableDirectory(config.files.dir, "FILES_DIR");
    // A writer killed mid-file leaves a temporary file no row points at; this start removes it.
    await sweepStaleTemps(config.files.dir);
    const notesDb = await openNotesDatabase({ url: config.libsqlUrl, authToken: config.libsqlAuthToken }).catch((error) => {
      throw new StartupError(`Cannot open the notes database (LIBSQL_URL ${redactUrl(config.libsqlUrl)}): ${describeCause(error)}`);
    });
    stops.push(() => notesDb.close());
    setHistorySettings(notesDb.db, config.history);
    // Notes written before the search index existed (or by imports) are indexed in the background;
    // a search catches up on its user's own backlog first, so none is ever missed meanwhile.
    const backfill = new AbortController();
    const indexing = catchUpSearchIndex(notesDb.db, { signal: backfill.signal }).catch((error) => {
      if (!backfill.signal.aborted) log.error("Indexing notes for search failed; searches index their user's notes as they run", error);
    });
    stops.push(async () => {
      backfill.abort();
      await indexing;
    });

    let connectionString = config.databaseUrl;
    if (connectionString) await connectWithin(connectionString, QUEUE_CONNECT_TIMEOUT_MS);
    else {
      const { startEmbeddedPostgres } = await import("./jobs/embedded-postgres");
      const postgres = await startEmbeddedPostgres({ dataDir: config.dataDir, log });
      stops.push(() => postgres.stop());
      connectionString = postgres.connectionString;
    }
    // News of changes travels on the queue's database; `queue` is set before any job or request runs.
    // One source of change events, three outlets: the streams (NOTIFY), the webhooks (delivery jobs)
    // and search by meaning (the embedding job of a written note's user).
    // ...and the text in pictures (the OCR job of a note that shows pictures it was not given the text of).
    const changes = createChangePublisher(
      (channel, payloads) => queue.notify(channel, payloads),
      () => [webhookOutlet, ...(embeddingOutlet ? [embeddingOutlet] : []), ...(ocrOutlet ? [ocrOutlet] : [])],
    );
    // Spawned at the first picture a worker reads; an API process never starts it.
    const ocrProcess = config.ocr && config.role !== "api" ? (options.ocrProcess ?? createOcrProcess()) : undefined;
    if (ocrProcess) stops.push(() => ocrProcess.stop());
    const queue = createQueue({
      connectionString,
      tasks: createJobCatalogue({
        db: notesDb.db,
        imports: config.imports,
        graph: config.graph,
        changes,
        files: config.files,
        stt: config.stt,
        // Called only by running jobs, by which time `queue` exists.
        transcriptions: { enqueue: (task): Promise<boolean> => importQueueOn(queue).enqueueTranscription!(task) },
        webhooks: { retryDelaysMs: config.webhooks.retryDelaysMs, queue: () => webhookQueue },
        // Snapshots are of a local database file; a libSQL server keeps its own.
        backups: config.libsqlUrl.startsWith("file:") ? { ...config.backups, dbFile: localPath(config.libsqlUrl) } : undefined,
        embeddings: config.embeddings,
        semanticQueue: (): SemanticQueue => semanticQueueOn(queue),
        feeds: { concurrency: config.feeds.concurrency, queue: (): FeedQueue => feedQueueOn(queue, config.feeds.concurrency), importQueue: (): ImportQueue => importQueueOn(queue) },
        ocr: config.ocr && ocrProcess ? { maxPictures: config.ocr.maxPictures, quietMs: options.ocrQuietMs ?? QUIET_AFTER_PERSON_MS, process: ocrProcess, queue: (): OcrQueue => ocrQueueOn(queue) } : undefined,
      }),
      log,
    });
    stops.push(() => queue.close());
    // Workers keep the queue's schema current; an API process only creates it on a fresh database.
    await (config.role === "api" ? queue.migrateIfMissing() : queue.migrate());
    const importQueue = importQueueOn(queue);
    const graphQueue = graphQueueOn(queue);
    const webhookQueue = webhookQueueOn(queue);
    // Every process moves webhook events the queue could not take at once (kept in the outbox) into it later.
    const relay = startOutboxRelay({ db: notesDb.db, queue: webhookQueue });
    stops.push(() => relay.stop());
    const webhookOutlet = createWebhookOutlet({ db: notesDb.db, queue: webhookQueue, graphSettings: config.graph, onOutbox: () => relay.poke() });
    stops.push(() => webhookOutlet.flush());
    const semantic = config.embeddings ? { client: createEmbeddingsClient(config.embeddings), queue: semanticQueueOn(queue) } : undefined;
    const embeddingOutlet = semantic && createEmbeddingOutlet(semantic);
    const ocrOutlet = config.ocr && createOcrOutlet({ db: notesDb.db, queue: () => ocrQueueOn(queue), maxPictures: config.ocr.maxPictures });

    // The API listens before the worker starts, so a port in use fails the start before any job runs.
    let listening = { url: "", port: 0 };
    if (config.role !== "worker") {
      const secretBox = await createSecretBox({ secretKey: config.secretKey, dataDir: config.dataDir });
      const feed = new ChangeFeed({ db: notesDb.db, graphSettings: config.graph });
      const listener = listenForChanges({
        connectionString,
        onChange: (change) => feed.deliver(change),
        onMissed: (since) => feed.missed(since),
      });
      stops.push(() => listener.stop());
      await listener.ready;
      let publicUrl = config.publicUrl ?? "";
      const app = createHttpApp({
        router: appRouter,
        publicUrl: () => publicUrl,
        mcpAllowedOrigins: config.mcp.allowedOrigins,
        importRules: config.imports,
        services: {
          db: notesDb.db,
          secretBox,
          importQueue,
          graphQueue,
          webhookQueue,
          changes,
          graphSettings: config.graph,
          files: config.files,
          askSettings: config.ask,
          publicUrl: () => publicUrl,
          semantic,
          registration: config.registration,
          uploadDirs: { archivesDir: config.imports.archivesDir, mediaDir: config.stt?.mediaDir },
          feeds: { fetch: await createFeedFetcher(config.imports), queue: feedQueueOn(queue, config.feeds.concurrency), bilibili: { sessdata: config.imports.bilibiliSessdata } },
        },
        events: feed,
        archivesDir: config.imports.archivesDir,
        mediaDir: config.stt?.mediaDir,
        pendingUploadsMaxBytes: config.imports.pendingUploadsMaxBytes,
        documentMaxBytes: config.imports.documentMaxBytes,
        document: buildOpenApiDocument(appRouter),
        checkHealth: async () => {
          await notesDb.client.execute("select 1");
          await queue.ping();
        },
      });
      try {
        app.listen({ port: config.port, hostname: config.host });
      } catch (error) {
        throw new StartupError(
          `Cannot listen on ${config.host}:${config.port}: ${describeCause(error)}; stop what uses it, or set PORT (and HOST)`,
        );
      }
      stops.push(async () => {
        await app.stop();
      });
      // Open streams never end on their own: end them first, or stopping the server waits for them.
      stops.push(() => feed.closeAll());
      const port = app.server!.port!;
      const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
      log.info(`Rhizome API listening on ${url} (docs at ${url}/docs)`);
      listening = { url, port };
      publicUrl ||= url;
    }

    if (config.role !== "api") {
      const worker: JobWorker = await queue.startWorker({ concurrency: config.worker.concurrency, unscheduled: options.unscheduled });
      const reconcile = () =>
        Promise.all([reconcileImportTasks(notesDb.db, importQueue, changes, { archivesDir: config.imports.archivesDir, files: config.files }), reconcileGraphBuilds(notesDb.db, graphQueue, changes)]).catch((error) =>
          log.warn("reconciler failed", error),
        );
      await reconcile();
      // A new model's backfill (or notes written while no worker ran) starts now, not at the next minute.
      if (config.embeddings) await queue.enqueue("semantic-sweep", {}).catch((error) => log.warn("could not queue the embedding sweep", error));
      const timer = setInterval(reconcile, RECONCILE_EVERY_MS);
      stops.push(async () => {
        clearInterval(timer);
        await worker.stop();
      });
      log.info(`worker ${worker.id} running ${config.worker.concurrency} job(s) at a time`);
    }

    return { ...listening, stop };
  } catch (error) {
    const cleanup = stop().catch((cleanupError) => log.warn("cleanup after a failed start failed", cleanupError));
    await Promise.race([cleanup, Bun.sleep(FAILED_START_CLEANUP_MS)]);
    throw error;
  }
}

async function connectWithin(connectionString: string, timeoutMs: number): Promise<void> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: timeoutMs });
  client.on("error", () => undefined); // a dropped connection surfaces as the failed connect below
  try {
    await client.connect();
  } catch (error) {
    throw new StartupError(
      `Cannot reach the queue's Postgres at DATABASE_URL (${redactUrl(connectionString)}): ${describeCause(error)}; check DATABASE_URL, or unset it to use the embedded Postgres`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A URL fit for a message: no password or token. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    parsed.search = "";
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, "//***@");
  }
}
