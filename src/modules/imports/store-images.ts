import pLimit from "p-limit";
import { abortableSleep } from "../../abortable-sleep";
import type { Database } from "../../db/client";
import { ServiceError, UnsupportedMediaTypeError } from "../errors";
import { log } from "../../log";
import type { FileStorage } from "../files/blob-store";
import { fileUrl } from "../files/file-record";
import { ACCEPTED_TYPES, recordFiles, stageImage, type StagedImage } from "../files/store-file";
import { ImportError } from "./import-error";
import type { Downloader } from "./platforms/types";

/** The contract's cap: pictures past it keep their remote links. */
export const MAX_IMAGES_PER_NOTE = 50;
/** A few at a time: quick for a 30-picture post, gentle on the image host and on memory (each is streamed). */
const IMAGES_AT_ONCE = 4;

/**
 * A picture whose host failed in a way that passes (a timeout, a dropped connection, 5xx, 429) is
 * asked for again after each of these pauses; the import itself does not wait for a job retry,
 * and a picture given up on keeps its remote link, which on most platforms expires.
 */
export const IMAGE_RETRY_DELAYS_MS = [1_000, 4_000];
/**
 * Retries one note's pictures may take together: a host that is down for all 50 would otherwise
 * hold the import through 150 timeouts (~10 minutes at 4 at a time) instead of 50 (~3).
 */
export const IMAGE_RETRIES_PER_NOTE = 8;

/** `![alt](https://…)` as the page parsers write images (URLs normalised, parentheses escaped). */
const REMOTE_IMAGE = /!\[((?:\\.|[^\]\\])*)\]\((https?:\/\/[^\s)]+)\)/g;

export interface ImageStoreRun {
  db: Database;
  storage: FileStorage;
  download: Downloader;
  userId: number;
  /** The import task the files are pending for until its note refers to them. */
  taskId: number;
  referer: string | undefined;
  signal: AbortSignal;
  /** Called as each picture is done (stored or not), for progress. */
  onImage?: (done: number, total: number) => Promise<void> | void;
  /** Pauses before asking again for a picture that failed transiently (IMAGE_RETRY_DELAYS_MS). */
  retryDelaysMs?: number[];
}

export interface StoredImages {
  markdown: string;
  /** Ids of the files the Markdown now refers to. */
  fileIds: number[];
  /** One per picture that keeps its remote link: `{name: <url>, error}`. */
  failures: { name: string; error: string }[];
}

/** The remote images a Markdown body shows, each once, in order. */
export function remoteImageUrls(markdown: string): string[] {
  return [...new Set([...markdown.matchAll(REMOTE_IMAGE)].map((match) => match[2]!))];
}

/**
 * Downloads the pictures of an imported note (through the guarded downloader, with the platform's
 * Referer), stores each as one of the user's files and points the Markdown at `/api/files/{id}`.
 * A picture that cannot be stored keeps its remote link and is listed; it never fails the import.
 */
export async function storeNoteImages(run: ImageStoreRun, markdown: string): Promise<StoredImages> {
  const urls = remoteImageUrls(markdown);
  const failures: StoredImages["failures"] = [];
  const taken = urls.slice(0, MAX_IMAGES_PER_NOTE);
  for (const url of urls.slice(MAX_IMAGES_PER_NOTE)) {
    failures.push({ name: url, error: `Not stored: a note keeps at most ${MAX_IMAGES_PER_NOTE} pictures` });
  }
  const stored = new Map<string, number>();
  const staged = new Map<string, StagedImage>();
  const limit = pLimit(IMAGES_AT_ONCE);
  const retries = { left: IMAGE_RETRIES_PER_NOTE };
  let done = 0;
  try {
    // Downloads run a few at a time, each streamed to a temporary file; the rows are then written
    // in one statement (a commit per picture would cost more than the picture).
    await Promise.all(
      taken.map((url) =>
        limit(async () => {
          if (run.signal.aborted) throw run.signal.reason;
          try {
            staged.set(url, await downloadImage(run, url, retries));
          } catch (error) {
            // A cancelled job is retried as a whole; a picture that failed on its own is only listed.
            if (run.signal.aborted) throw error;
            failures.push({ name: url, error: imageFailure(error) });
          }
          await run.onImage?.(++done, taken.length);
        }),
      ),
    );
  } catch (error) {
    for (const image of staged.values()) await image.blob.discard();
    throw error;
  }
  // In the order the pictures appear, so their ids (and any quota cut-off) follow the note.
  const urlsStaged = taken.filter((url) => staged.has(url));
  const results = await recordFiles({ db: run.db, storage: run.storage }, { userId: run.userId, files: urlsStaged.map((url) => staged.get(url)!), pendingTaskId: run.taskId });
  results.forEach((result, index) => {
    const url = urlsStaged[index]!;
    if (result instanceof Error) failures.push({ name: url, error: imageFailure(result) });
    else stored.set(url, result.id);
  });
  const rewritten = markdown.replace(REMOTE_IMAGE, (whole, alt: string, url: string) => {
    const id = stored.get(url);
    return id === undefined ? whole : `![${alt}](${fileUrl(id)})`;
  });
  // Failures in the order the pictures appear, whichever finished first.
  failures.sort((a, b) => urls.indexOf(a.name) - urls.indexOf(b.name));
  // Ids in the order the pictures appear, whichever arrived first.
  const fileIds = [...new Set(taken.flatMap((url) => (stored.has(url) ? [stored.get(url)!] : [])))];
  return { markdown: rewritten, fileIds, failures };
}

async function downloadImage(run: ImageStoreRun, url: string, retries: { left: number }): Promise<StagedImage> {
  const delays = run.retryDelaysMs ?? IMAGE_RETRY_DELAYS_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await run.download(url, { headers: run.referer ? { referer: run.referer } : {}, signal: run.signal }, (body) => stageImage(run.storage, body));
    } catch (error) {
      const transient = error instanceof ImportError && !error.permanent;
      if (!transient || attempt >= delays.length || retries.left <= 0 || run.signal.aborted) throw error;
      retries.left--;
      await abortableSleep(delays[attempt]!, run.signal);
    }
  }
}

/** Our own words for why a picture was not stored. */
function imageFailure(error: unknown): string {
  if (error instanceof ImportError) return error.message.replace(/the page is larger than/, "the picture is larger than");
  if (error instanceof UnsupportedMediaTypeError) return `Not stored: the answer is not a ${ACCEPTED_TYPES} image`;
  if (error instanceof ServiceError) return `Not stored: ${error.message.replace(/^The file/, "the picture")}`;
  log.warn("storing an imported picture failed unexpectedly", error);
  return "Not stored: the picture could not be saved";
}
