import { z } from "zod";
import type { Database } from "../db/client";
import { sweepExpiredAuthRows } from "../modules/auth/sweep-expired";
import type { ChangePublisher } from "../modules/events/change";
import type { ExtractorSettings } from "../modules/graph/create-extractor";
import { failBuild } from "../modules/graph/fail-build";
import { graphJobKey, type GraphQueue } from "../modules/graph/graph-queue";
import { importJobKey, type ImportQueue, transcriptionJobKey } from "../modules/imports/import-queue";
import type { SttSettings } from "../modules/llm/speech-to-text";
import type { SttLimits } from "../modules/transcripts/run-transcription";
import { markTaskFailed, runImportTask, type ImportRun } from "../modules/imports/run-import";
import { resolverWith, type ResolveOverrides } from "../modules/imports/resolve-overrides";
import { removeArchiveFile } from "../modules/archives/archive-file";
import type { FileStorage } from "../modules/files/blob-store";
import { sweepUnclaimedBlobs } from "../modules/files/sweep-unclaimed-blobs";
import { sweepDeadShareLinks } from "../modules/shares/sweep-share-links";
import { defineTask } from "./define-task";
import { purgeExpiredTrash } from "../modules/history/trash";
import { releaseUnshownFiles } from "../modules/history/version-files";
import { takeDueBackup } from "../modules/history/backups";
import type { Queue } from "./queue";
import { deliverWebhookEvent, DELIVERY_TIMEOUT_MS } from "../modules/webhooks/deliver";
import { pruneDeliveryLog } from "../modules/webhooks/prune-deliveries";
import { deliverWebhookGroup } from "../modules/webhooks/deliver-group";
import { deliveryGroupPayload, deliveryJobKey, deliveryPayload, type WebhookQueue } from "../modules/webhooks/webhook-queue";
import type { EmbeddingsSettings } from "../modules/llm/providers/openai-embeddings";
import { semanticJobKey, type SemanticQueue } from "../modules/semantic/semantic-queue";
import { accountGone } from "../modules/accounts/account-gone";
import { type FeedJobDependencies, feedQueueWith, feedTasks } from "./feed-tasks";
import type { FeedQueue } from "../modules/feeds/feed-services";
import { ocrJobKey, type OcrQueue } from "../modules/ocr/ocr-queue";
import { ocrTasks, type OcrJobSettings } from "./ocr-tasks";
import { DOCUMENT_MAX_MB_DEFAULT } from "../modules/documents/document-kinds";

/** Fetch retries back off 2.7 s, 7.4 s, 20 s: enough for a blip, short enough to report failure soon. */
const IMPORT_MAX_ATTEMPTS = 4;
/** A build resumes where it stopped, so a few attempts cover a worker restart without retrying for days. */
const GRAPH_BUILD_MAX_ATTEMPTS = 3;
/** A transcription resumes at its first piece not done; each piece already retries its server 4 times. */
const TRANSCRIBE_MAX_ATTEMPTS = 4;
/** Media is larger than pages: a 3-hour soundtrack, or a short video's whole file. */
const MEDIA_MAX_BYTES = 1024 * 1024 * 1024;
const MEDIA_TIMEOUT_MS = 30 * 60_000;
/** A linked PDF may be 100 MiB (DOCUMENT_MAX_MB): more than a page's 15 s to arrive. */
const DOCUMENT_TIMEOUT_MS = 2 * 60_000;
/** A delivery job's own outcome never throws; more attempts only cover workers that die mid-attempt. */
const WEBHOOK_DELIVERY_MAX_ATTEMPTS = 5;
/** A sweep runs again at its next scheduled time anyway. */
const SWEEP_MAX_ATTEMPTS = 1;
/** A server that keeps failing is tried again by the next sweep (each minute) anyway. */
const EMBED_MAX_ATTEMPTS = 4;

export interface JobDependencies {
  db: Database;
  /** `archivesDir`: where uploaded archives wait (DATA_DIR/archives); a process without it fails archive tasks. */
  imports: { allowPrivateNetworks: boolean; resolveOverrides?: ResolveOverrides; bilibiliSessdata?: string; archivesDir?: string; documentMaxBytes?: number };
  /** Speech-to-text (STT_*); without it videos import without transcripts. */
  stt?: SttSettings & SttLimits;
  /** How an import queues its transcription (the queue is made after the catalogue, so it is reached late). */
  transcriptions?: { enqueue(task: { id: number; userId: number }): Promise<boolean> };
  /** Where imported pictures are stored; without it, imported notes keep remote image links. */
  files?: FileStorage;
  graph: ExtractorSettings;
  changes: ChangePublisher;
  /** Where scheduled backups go (a local notes database only); `intervalHours` 0 turns them off. */
  backups?: { dbFile: string; dir: string; intervalHours: number; keep: number };
  /** WEBHOOK_RETRY_DELAYS, and the queue a failed delivery queues its next attempt on (set once the queue exists). */
  webhooks?: { retryDelaysMs: readonly number[]; queue: () => WebhookQueue };
  /** The embeddings server (EMBEDDINGS_*); without it, nothing is embedded. */
  embeddings?: EmbeddingsSettings;
  /** How the sweep queues each user's embedding job (set once the queue exists). */
  semanticQueue?: () => SemanticQueue;
  /** Following feeds (FEEDS_CONCURRENCY and the queue); without it, feed jobs refuse to run. */
  feeds?: FeedJobDependencies["feeds"];
  /** Text in pictures (OCR=local): the OCR process, and how a job queues itself again; without it, nothing is read. */
  ocr?: OcrJobSettings;
}

/** Every background task of the service, with its payload schema. */
export function createJobCatalogue(deps: JobDependencies) {
  // The page parsers (linkedom, Readability, turndown) load with the first import job, and the graph
  // builder (the Anthropic SDK, graphology) with the first build, so an API-only process that just
  // enqueues never carries them.
  let importTools: Promise<Pick<ImportRun, "fetcher" | "importers" | "download" | "downloadDocument">> | undefined;
  const loadImportTools = () =>
    (importTools ??= Promise.all([
      import("../modules/imports/safe-fetch/fetch-page"),
      import("../modules/imports/safe-fetch/download-file"),
      import("../modules/imports/platforms"),
    ]).then(
      ([{ createSafeFetcher }, { createSafeDownloader }, { createImporters }]) => {
        const network = {
          allowPrivateNetworks: deps.imports.allowPrivateNetworks,
          ...(deps.imports.resolveOverrides?.size ? { resolve: resolverWith(deps.imports.resolveOverrides) } : {}),
        };
        return {
          // A link to a PDF is answered unread, and the PDF downloaded under the documents' own limit.
          fetcher: createSafeFetcher({ ...network, documentContentTypes: ["application/pdf"] }),
          download: createSafeDownloader(network),
          downloadDocument: createSafeDownloader({ ...network, maxBodyBytes: deps.imports.documentMaxBytes ?? DOCUMENT_MAX_MB_DEFAULT * 1024 * 1024, timeoutMs: DOCUMENT_TIMEOUT_MS }),
          importers: createImporters({ bilibiliSessdata: deps.imports.bilibiliSessdata }),
        };
      },
    ));
  const loadGraphBuilder = () => import("../modules/graph/build-graph");
  // The transcriber (mediabunny, the speech-to-text client) loads with the first transcription job.
  let transcriber: Promise<Pick<import("../modules/transcripts/run-transcription").TranscriptionRun, "stt" | "downloadMedia">> | undefined;
  const loadTranscriber = (stt: SttSettings & SttLimits) =>
    (transcriber ??= Promise.all([import("../modules/llm/speech-to-text"), import("../modules/imports/safe-fetch/download-file")]).then(([{ createSttClient }, { createSafeDownloader }]) => ({
      stt: createSttClient(stt),
      downloadMedia: createSafeDownloader({
        allowPrivateNetworks: deps.imports.allowPrivateNetworks,
        ...(deps.imports.resolveOverrides?.size ? { resolve: resolverWith(deps.imports.resolveOverrides) } : {}),
        maxBodyBytes: MEDIA_MAX_BYTES,
        timeoutMs: MEDIA_TIMEOUT_MS,
      }),
    })));
  // Webhook deliveries obey the import address rules, checked after DNS at each attempt; no redirect is followed.
  let poster: Promise<Pick<import("../modules/webhooks/deliver").DeliveryRun, "post" | "keepConnections">> | undefined;
  const loadPoster = () =>
    (poster ??= Promise.all([import("../modules/imports/safe-fetch/post-json"), import("../modules/imports/safe-fetch/kept-connections")]).then(([{ createSafePoster }, { keepConnections }]) => ({
      post: createSafePoster({
        allowPrivateNetworks: deps.imports.allowPrivateNetworks,
        timeoutMs: DELIVERY_TIMEOUT_MS,
        maxRedirects: 0,
        ...(deps.imports.resolveOverrides?.size ? { resolve: resolverWith(deps.imports.resolveOverrides) } : {}),
      }),
      keepConnections,
    })));
  let embedder: Promise<{ run: (userId: number, signal: AbortSignal) => Promise<unknown>; sweep: () => Promise<number[]> }> | undefined;
  const loadEmbedder = (settings: EmbeddingsSettings) =>
    (embedder ??= Promise.all([import("../modules/llm/providers/openai-embeddings"), import("../modules/semantic/embed-user-notes"), import("../modules/semantic/sweep")]).then(
      ([{ createEmbeddingsClient }, { embedUserNotes }, { usersToEmbed }]) => {
        const client = createEmbeddingsClient(settings);
        return { run: (userId, signal) => embedUserNotes({ db: deps.db, client, signal }, userId), sweep: () => usersToEmbed(deps.db, settings) };
      },
    ));
  /** A job of one account's: failing because the account was deleted meanwhile, it ends quietly (a retry would find nothing). */
  const forAccount = async (userId: number, job: () => Promise<void>): Promise<void> => {
    try {
      await job();
    } catch (error) {
      if (await accountGone(deps.db, userId).catch(() => false)) return;
      throw error;
    }
  };
  return [
    ...feedTasks({ db: deps.db, changes: deps.changes, imports: deps.imports, feeds: deps.feeds }),
    defineTask({
      name: "import",
      payload: z.object({ taskId: z.number().int().positive(), userId: z.number().int().positive() }),
      maxAttempts: IMPORT_MAX_ATTEMPTS,
      handler: async (payload, helpers) =>
        forAccount(payload.userId, async () => runImportTask(
          {
            db: deps.db,
            ...(await loadImportTools()),
            archivesDir: deps.imports.archivesDir ?? "",
            signal: helpers.signal,
            attempt: helpers.attempts,
            maxAttempts: helpers.maxAttempts,
            changes: deps.changes,
            files: deps.files,
            ...(deps.stt && deps.transcriptions ? { transcriptions: deps.transcriptions } : {}),
          },
          payload,
        )),
      // The last attempt died with its worker (the handler itself records its own failures).
      onPermanentFailure: async (payload) => {
        const archiveFile = await markTaskFailed(deps.db, payload.taskId, "The import was interrupted too many times. Try again, or paste the content instead.", deps.changes, deps.files);
        if (archiveFile && deps.imports.archivesDir) removeArchiveFile(deps.imports.archivesDir, archiveFile);
      },
    }),
    defineTask({
      name: "transcribe",
      payload: z.object({ taskId: z.number().int().positive(), userId: z.number().int().positive() }),
      maxAttempts: TRANSCRIBE_MAX_ATTEMPTS,
      handler: async (payload, helpers) => {
        const stt = deps.stt;
        if (!stt) {
          // Speech-to-text was turned off since the task was queued: the note is saved without a transcript.
          const { abandonTranscription } = await import("../modules/transcripts/run-transcription");
          return abandonTranscription({ db: deps.db, changes: deps.changes, files: deps.files, limits: { mediaDir: "", maxSeconds: 0, chunkSeconds: 0, maxBytes: 0 }}, payload.taskId);
        }
        const [{ runTranscriptionTask }, tools, transcription] = await Promise.all([import("../modules/transcripts/run-transcription"), loadImportTools(), loadTranscriber(stt)]);
        return forAccount(payload.userId, () => runTranscriptionTask(
          {
            db: deps.db,
            ...transcription,
            limits: stt,
            fetcher: tools.fetcher,
            importers: tools.importers,
            signal: helpers.signal,
            attempt: helpers.attempts,
            maxAttempts: helpers.maxAttempts,
            changes: deps.changes,
            files: deps.files,
          },
          payload,
        ));
      },
      onPermanentFailure: async (payload) => {
        const { abandonTranscription } = await import("../modules/transcripts/run-transcription");
        await abandonTranscription({ db: deps.db, changes: deps.changes, files: deps.files, limits: deps.stt ?? { mediaDir: "", maxSeconds: 0, chunkSeconds: 0, maxBytes: 0 }}, payload.taskId);
      },
    }),
    defineTask({
      name: "graph-build",
      payload: z.object({ buildId: z.number().int().positive(), userId: z.number().int().positive() }),
      maxAttempts: GRAPH_BUILD_MAX_ATTEMPTS,
      handler: async (payload, helpers) =>
        forAccount(payload.userId, async () =>
          (await loadGraphBuilder()).runGraphBuild(
            { db: deps.db, settings: deps.graph, signal: helpers.signal, attempt: helpers.attempts, maxAttempts: helpers.maxAttempts, changes: deps.changes },
            payload,
          ),
        ),
      onPermanentFailure: (payload) => failBuild(deps.db, payload.buildId, "The build was interrupted too many times; start it again", deps.changes),
    }),
    defineTask({
      name: "webhook-delivery",
      payload: deliveryPayload,
      maxAttempts: WEBHOOK_DELIVERY_MAX_ATTEMPTS,
      handler: async (payload, helpers) => {
        const webhooks = deps.webhooks;
        if (!webhooks) throw new Error("this worker was started without webhook settings");
        await forAccount(payload.userId, async () =>
          deliverWebhookEvent({ db: deps.db, post: (await loadPoster()).post, queue: webhooks.queue(), retryDelaysMs: webhooks.retryDelaysMs, signal: helpers.signal }, payload),
        );
      },
    }),
    defineTask({
      name: "webhook-delivery-group",
      payload: deliveryGroupPayload,
      maxAttempts: WEBHOOK_DELIVERY_MAX_ATTEMPTS,
      handler: async (payload, helpers) => {
        const webhooks = deps.webhooks;
        if (!webhooks) throw new Error("this worker was started without webhook settings");
        await forAccount(payload[0]!.userId, async () =>
          deliverWebhookGroup(
            { db: deps.db, ...(await loadPoster()), queue: webhooks.queue(), retryDelaysMs: webhooks.retryDelaysMs, signal: helpers.signal },
            payload,
            { rerun: helpers.attempts > 1 },
          ),
        );
      },
    }),
    defineTask({
      name: "webhook-log-sweep",
      payload: z.object({}),
      maxAttempts: SWEEP_MAX_ATTEMPTS,
      schedule: "53 3 * * *", // daily: the log keeps 30 days, a day more or less does not matter
      handler: async (_payload, helpers) => {
        const pruned = await pruneDeliveryLog(deps.db);
        if (pruned) helpers.log.info(`deleted ${pruned} webhook delivery record(s) older than 30 days`);
      },
    }),
    defineTask({
      name: "semantic-embed",
      payload: z.object({ userId: z.number().int().positive() }),
      maxAttempts: EMBED_MAX_ATTEMPTS,
      handler: async (payload, helpers) => {
        if (!deps.embeddings) return;
        const embeddings = deps.embeddings;
        try {
          await forAccount(payload.userId, async () => {
            await (await loadEmbedder(embeddings)).run(payload.userId, helpers.signal);
          });
        } catch (error) {
          // A wrong key, model or URL fails every retry alike: recorded for the status, retried by the sweep.
          if ((error as { stopsBuild?: boolean }).stopsBuild) {
            helpers.log.warn(`embedding user ${payload.userId}'s notes stopped: ${(error as Error).message}`);
            return;
          }
          throw error;
        }
      },
    }),
    defineTask({
      name: "semantic-sweep",
      payload: z.object({}),
      maxAttempts: SWEEP_MAX_ATTEMPTS,
      // Every minute: notes of writers that publish no change event (another program on the database),
      // deleted notes' vectors, a graph's new concepts, and a new model's backfill.
      schedule: "* * * * *",
      handler: async () => {
        if (!deps.embeddings || !deps.semanticQueue) return;
        const queue = deps.semanticQueue();
        for (const userId of await (await loadEmbedder(deps.embeddings)).sweep()) await queue.enqueueEmbedding(userId);
      },
    }),
    ...ocrTasks(deps, forAccount),
    defineTask({
      name: "auth-sweep",
      payload: z.object({}),
      maxAttempts: SWEEP_MAX_ATTEMPTS,
      schedule: "17 * * * *", // hourly, off the hour that other cron jobs on a shared Postgres tend to pick
      handler: async (_payload, helpers) => {
        const swept = await sweepExpiredAuthRows(deps.db);
        if (swept.sessions || swept.throttles) {
          helpers.log.info(`deleted ${swept.sessions} expired session(s) and ${swept.throttles} spent throttle row(s)`);
        }
        // Share links are bearer secrets too: expired ones, and those of purged notes, go with the sessions.
        const links = await sweepDeadShareLinks(deps.db);
        if (links) helpers.log.info(`deleted ${links} share link(s) that can no longer work`);
      },
    }),
    defineTask({
      name: "trash-purge",
      payload: z.object({}),
      maxAttempts: SWEEP_MAX_ATTEMPTS,
      schedule: "23 * * * *", // hourly: a note leaves the trash within the hour after its TRASH_DAYS
      handler: async (_payload, helpers) => {
        const purged = await purgeExpiredTrash(deps.db, deps.files);
        if (purged) helpers.log.info(`purged ${purged} note(s) from the trash after TRASH_DAYS`);
        // Versions pruned past NOTE_VERSIONS_MAX since the last run let go of their files here.
        const released = await releaseUnshownFiles({ db: deps.db, storage: deps.files });
        if (released) helpers.log.info(`deleted ${released} stored file(s) that no note or kept version shows any more`);
      },
    }),
    defineTask({
      name: "backup",
      payload: z.object({}),
      maxAttempts: SWEEP_MAX_ATTEMPTS,
      // Hourly, each run taking a backup only once the newest is BACKUP_INTERVAL_HOURS old (a cron line cannot say "every N hours" for any N).
      schedule: "37 * * * *",
      handler: async (_payload, helpers) => {
        const backups = deps.backups;
        if (!backups || backups.intervalHours === 0) return;
        const place = { dbFile: backups.dbFile, filesDir: deps.files?.dir ?? "", backupDir: backups.dir, keep: backups.keep };
        const taken = await takeDueBackup(place, backups.intervalHours, helpers.signal);
        if (!taken) return;
        const { dir, manifest } = taken;
        helpers.log.info(`backup ${dir}: ${manifest.notes} notes, ${manifest.files} files, ${manifest.bytes} bytes, checked`);
      },
    }),
    defineTask({
      name: "files-sweep",
      payload: z.object({}),
      maxAttempts: SWEEP_MAX_ATTEMPTS,
      schedule: "43 4 * * *", // daily: leftovers need a crash to exist, and listing the store reads every shard
      handler: async (_payload, helpers) => {
        if (!deps.files) return;
        const removed = await sweepUnclaimedBlobs({ db: deps.db, storage: deps.files });
        if (removed) helpers.log.info(`removed ${removed} stored file(s) no row claimed (left by an interrupted write or delete)`);
      },
    }),
  ] as const;
}

export type JobCatalogue = ReturnType<typeof createJobCatalogue>;

/** The task service's view of the queue. */
export function importQueueOn(queue: Queue<JobCatalogue>): ImportQueue {
  return {
    async enqueueTranscription(task) {
      const job = await queue.enqueue("transcribe", { taskId: task.id, userId: task.userId }, { jobKey: transcriptionJobKey(task.id) });
      return job !== null;
    },
    async findTranscriptionJob(taskId) {
      const job = await queue.findJob(transcriptionJobKey(taskId));
      return job && { permanentlyFailed: job.permanentlyFailed };
    },
    async enqueueImport(task) {
      const job = await queue.enqueue("import", { taskId: task.id, userId: task.userId }, { jobKey: importJobKey(task.id) });
      return job !== null;
    },
    async findImportJob(taskId) {
      const job = await queue.findJob(importJobKey(taskId));
      return job && { permanentlyFailed: job.permanentlyFailed };
    },
  };
}

/**
 * The embedding jobs' view of the queue: one per user, the writes of each EMBED_DELAY_MS gathered
 * into one run. A job already queued keeps its time: pushing it back at each write would starve a
 * user who writes more often than that. (A write while the job runs queues the next one.)
 */
export function semanticQueueOn(queue: Queue<JobCatalogue>): SemanticQueue {
  return {
    async enqueueEmbedding(userId) {
      await queue.enqueue("semantic-embed", { userId }, { jobKey: semanticJobKey(userId), jobKeyMode: "preserve_run_at", runAt: new Date(Date.now() + EMBED_DELAY_MS) });
    },
  };
}

// Autosaves come a few a second: a run at most this long after a write, "within seconds".
const EMBED_DELAY_MS = 500;

/** The feeds' view of the queue (see feedQueueWith). */
export function feedQueueOn(queue: Queue<JobCatalogue>, concurrency: number): FeedQueue {
  return feedQueueWith((jobs) => queue.enqueueMany("feed-fetch", jobs), concurrency);
}

/** Text in pictures' view of the queue: one job per note, a burst of writes gathered into one run. */
export function ocrQueueOn(queue: Queue<JobCatalogue>): OcrQueue {
  return {
    async enqueueNote(userId, noteId, runAt) {
      const options = runAt ? { jobKey: ocrJobKey(noteId), runAt } : { jobKey: ocrJobKey(noteId), jobKeyMode: "preserve_run_at" as const, runAt: new Date(Date.now() + OCR_DELAY_MS) };
      await queue.enqueue("ocr-note", { userId, noteId }, options);
    },
    async enqueueArchive(userId, taskId) {
      await queue.enqueue("ocr-archive", { userId, taskId }, { jobKey: `ocr-archive:${taskId}` });
    },
  };
}

// A note written a few times in a row (an import's steps, autosaves) is read once, shortly after.
const OCR_DELAY_MS = 1000;

/** The graph service's view of the queue. */
export function graphQueueOn(queue: Queue<JobCatalogue>): GraphQueue {
  return {
    async enqueueBuild(build) {
      const job = await queue.enqueue("graph-build", { buildId: build.id, userId: build.userId }, { jobKey: graphJobKey(build.userId) });
      return job !== null;
    },
    async findBuildJob(userId) {
      const job = await queue.findJob(graphJobKey(userId));
      return job && { permanentlyFailed: job.permanentlyFailed };
    },
  };
}

/** The webhook service's view of the queue: first attempts in one job per group, retries one job each, keyed by webhook and event. */
export function webhookQueueOn(queue: Queue<JobCatalogue>): WebhookQueue {
  return {
    async enqueueDelivery(payload, runAt) {
      const options = { jobKey: deliveryJobKey(payload.webhookId, payload.eventId), ...(runAt && { runAt }) };
      // Null: a worker locked the keyed job at that instant (graphile-worker's race); asking again settles it.
      for (let tries = 0; tries < 3; tries++) if (await queue.enqueue("webhook-delivery", payload, options)) return;
      throw new Error(`could not queue attempt ${payload.attempt} of webhook event ${payload.eventId}`);
    },
    async enqueueDeliveries(payloads) {
      await queue.enqueueMany(
        "webhook-delivery",
        payloads.map((payload) => ({ payload, options: { jobKey: deliveryJobKey(payload.webhookId, payload.eventId) } })),
      );
    },
    async enqueueGroups(groups, runAt) {
      await queue.enqueueMany(
        "webhook-delivery-group",
        groups.map(({ key, events }) => ({ payload: events, options: { jobKey: key, ...(runAt && { runAt }) } })),
      );
    },
  };
}
