import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { files } from "../../db/schema";
import { TooLargeError, UnsupportedMediaTypeError } from "../errors";
import { BlobTooLargeError, MAX_FILE_BYTES, stageBlob, type FileStorage, type StagedBlob } from "./blob-store";
import type { FileRow } from "./file-record";
import type { FileMime } from "./file-types";
import { sniffImageType, type ImageType } from "./sniff-image";

export const ACCEPTED_TYPES = "PNG, JPEG, GIF, WebP or AVIF";

type Store = { db: Database; storage: FileStorage };

/** Bytes written to a temporary file and typed, not yet one of the user's files. */
export interface StagedFile {
  blob: StagedBlob;
  type: { mime: FileMime };
}

/** An image written to a temporary file and typed from its bytes, not yet one of the user's files. */
export interface StagedImage extends StagedFile {
  type: ImageType;
}

/**
 * Streams an image to a temporary file (hashed, fsynced; never more than a chunk in memory) and
 * types it from its bytes. Over 10 MiB, or not one of the five image types, it is removed and
 * the error says why.
 */
export async function stageImage(storage: FileStorage, body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<StagedImage> {
  let blob: StagedBlob;
  try {
    blob = await stageBlob(storage.dir, body, MAX_FILE_BYTES);
  } catch (error) {
    if (error instanceof BlobTooLargeError) throw new TooLargeError(`The file is larger than the ${MAX_FILE_BYTES / 1024 / 1024} MiB limit`);
    throw error;
  }
  const type = sniffImageType(blob.head);
  if (!type) {
    await blob.discard();
    throw new UnsupportedMediaTypeError(`The file is not a ${ACCEPTED_TYPES} image`);
  }
  return { blob, type };
}

/**
 * Makes staged files (pictures, a document's original) the user's files, in order: bytes the user
 * already keeps (same SHA-256) are that file; new ones are kept while the user's quota allows, else
 * their answer is a TooLargeError naming the cap. The bytes go under their address before any row
 * exists, so no row ever points at a half-written file; the new rows are one statement. Temporary
 * files are removed.
 */
export async function recordFiles({ db, storage }: Store, input: { userId: number; files: StagedFile[]; pendingTaskId?: number }): Promise<(FileRow | TooLargeError)[]> {
  const { userId, files: images } = input;
  try {
    if (images.length === 0) return [];
    const hashes = [...new Set(images.map((image) => image.blob.sha256))];
    const known = new Map((await rowsBySha(db, userId, hashes)).map((row) => [row.sha256, row]));
    // A picture still pending for another import becomes this one's (or, for an upload, the user's
    // for good), so that import failing cannot take away a file this caller is about to use.
    const claim = input.pendingTaskId ?? null;
    const adopted = [...known.values()].filter((row) => row.pendingTaskId !== null && row.pendingTaskId !== claim);
    if (adopted.length > 0) {
      await db.update(files).set({ pendingTaskId: claim }).where(and(inArray(files.id, adopted.map((row) => row.id)), isNotNull(files.pendingTaskId)));
      for (const row of adopted) known.set(row.sha256, { ...row, pendingTaskId: claim });
    }
    let used = await usedBytes(db, userId);
    const accepted = new Map<string, StagedFile>();
    const refused = new Set<string>();
    for (const image of images) {
      const sha = image.blob.sha256;
      if (known.has(sha) || accepted.has(sha) || refused.has(sha)) continue;
      if (used + image.blob.size > storage.maxBytesPerUser) refused.add(sha);
      else {
        accepted.set(sha, image);
        used += image.blob.size;
      }
    }
    // Committing a known one again heals bytes lost to a concurrent delete; it is a no-op otherwise.
    // All at once: each waits on its fsyncs, which the file system can take together.
    const toCommit = new Map(images.filter((image) => !refused.has(image.blob.sha256)).map((image) => [image.blob.sha256, image.blob]));
    await Promise.all([...toCommit.values()].map((blob) => blob.commit()));
    if (accepted.size > 0) {
      const now = Date.now();
      await db
        .insert(files)
        .values([...accepted.values()].map(({ blob, type }) => ({ userId, sha256: blob.sha256, mime: type.mime, size: blob.size, createdAt: now, pendingTaskId: input.pendingTaskId ?? null })))
        .onConflictDoNothing();
      for (const row of await rowsBySha(db, userId, [...accepted.keys()])) known.set(row.sha256, row);
    }
    // Claimed now: bytes a concurrent delete removed between our link and our row come back.
    await Promise.all([...toCommit.values()].map((blob) => blob.commit()));
    const overQuota = new TooLargeError(`Storing this file would pass your storage limit of ${formatLimit(storage.maxBytesPerUser)}`);
    return images.map((image) => known.get(image.blob.sha256) ?? overQuota);
  } finally {
    for (const image of images) await image.blob.discard();
  }
}

/** One image, start to finish: staged, typed, kept once per user by SHA-256 within the quota. */
export async function storeFile(store: Store, input: { userId: number; body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>; pendingTaskId?: number }): Promise<FileRow> {
  const image = await stageImage(store.storage, input.body);
  const [result] = await recordFiles(store, { userId: input.userId, files: [image], pendingTaskId: input.pendingTaskId });
  if (result instanceof Error) throw result;
  return result!;
}

async function rowsBySha(db: Database, userId: number, hashes: string[]): Promise<FileRow[]> {
  return db.select().from(files).where(and(eq(files.userId, userId), inArray(files.sha256, hashes)));
}

async function usedBytes(db: Database, userId: number): Promise<number> {
  const [row] = await db.select({ bytes: sql<number>`coalesce(sum(${files.size}), 0)` }).from(files).where(eq(files.userId, userId));
  return Number(row?.bytes ?? 0);
}

export function formatLimit(bytes: number): string {
  const units: [number, string][] = [[1024 ** 3, "GiB"], [1024 ** 2, "MiB"], [1024, "KiB"]];
  for (const [size, unit] of units) if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  return `${bytes} bytes`;
}
