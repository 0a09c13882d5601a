import { z } from "zod";
import type { Database } from "../db/client";
import { importJobKey, type ImportQueue } from "../modules/imports/import-queue";
import { markTaskFailed, runImportTask, type ImportRun } from "../modules/imports/run-import";
import { defineTask } from "./define-task";
import type { Queue } from "./queue";

/** Fetch retries back off 2.7 s, 7.4 s, 20 s: enough for a blip, short enough to report failure soon. */
const IMPORT_MAX_ATTEMPTS = 4;

export interface JobDependencies {
  db: Database;
  imports: { allowPrivateNetworks: boolean; bilibiliSessdata?: string };
}

/** Every background task of the service, with its payload schema. */
export function createJobCatalogue(deps: JobDependencies) {
  // The page parsers (linkedom, Readability, turndown) load with the first import job, so an
  // API-only process that just enqueues never carries them.
  let importTools: Promise<Pick<ImportRun, "fetcher" | "importers">> | undefined;
  const loadImportTools = () =>
    (importTools ??= Promise.all([import("../modules/imports/safe-fetch"), import("../modules/imports/platforms")]).then(
      ([{ createSafeFetcher }, { createImporters }]) => ({
        fetcher: createSafeFetcher({ allowPrivateNetworks: deps.imports.allowPrivateNetworks }),
        importers: createImporters({ bilibiliSessdata: deps.imports.bilibiliSessdata }),
      }),
    ));
  return [
    defineTask({
      name: "import",
      payload: z.object({ taskId: z.number().int().positive(), userId: z.number().int().positive() }),
      maxAttempts: IMPORT_MAX_ATTEMPTS,
      handler: async (payload, helpers) =>
        runImportTask(
          { db: deps.db, ...(await loadImportTools()), signal: helpers.signal, attempt: helpers.attempts, maxAttempts: helpers.maxAttempts },
          payload,
        ),
      // The last attempt died with its worker (the handler itself records its own failures).
      onPermanentFailure: (payload) =>
        markTaskFailed(deps.db, payload.taskId, "The import was interrupted too many times. Try again, or paste the content instead."),
    }),
  ] as const;
}

export type JobCatalogue = ReturnType<typeof createJobCatalogue>;

/** The task service's view of the queue. */
export function importQueueOn(queue: Queue<JobCatalogue>): ImportQueue {
  return {
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
