import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { files } from "../../db/schema";
import { TooLargeError, UnsupportedMediaTypeError } from "../errors";
import { BlobTooLargeError, MAX_FILE_BYTES, stageBlob, type FileStorage } from "./blob-store";
import type { FileRow } from "./file-record";
import { sniffImageType } from "./sniff-image";

export interface StoreFileInput {
  userId: number;
  body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
  /** An import task storing the file for the note it is about to write (see `files.pending_task_id`). */
  pendingTaskId?: number;
}

export const ACCEPTED_TYPES = "PNG, JPEG, GIF, WebP or AVIF";

/**
 * Stores one image for a user: streamed to disk and hashed, typed from its bytes, kept once per
 * user by SHA-256 (the same picture again is the same file), within the user's quota. The bytes
 * are under their address before the row exists, so no row ever points at a half-written file.
 */
export async function storeFile({ db, storage }: { db: Database; storage: FileStorage }, input: StoreFileInput): Promise<FileRow> {
  let staged;
  try {
    staged = await stageBlob(storage.dir, input.body, MAX_FILE_BYTES);
  } catch (error) {
    if (error instanceof BlobTooLargeError) throw new TooLargeError(`The file is larger than the ${MAX_FILE_BYTES / 1024 / 1024} MiB limit`);
    throw error;
  }
  try {
    const type = sniffImageType(staged.head);
    if (!type) throw new UnsupportedMediaTypeError(`The file is not a ${ACCEPTED_TYPES} image`);
    const existing = await findBySha(db, input.userId, staged.sha256);
    if (existing) {
      // Committing again heals a blob lost to a concurrent delete; it is a no-op otherwise.
      await staged.commit();
      return existing;
    }
    const used = await usedBytes(db, input.userId);
    if (used + staged.size > storage.maxBytesPerUser) {
      throw new TooLargeError(`Storing this file would pass your storage limit of ${formatLimit(storage.maxBytesPerUser)}`);
    }
    await staged.commit();
    await db
      .insert(files)
      .values({ userId: input.userId, sha256: staged.sha256, mime: type.mime, size: staged.size, createdAt: Date.now(), pendingTaskId: input.pendingTaskId ?? null })
      .onConflictDoNothing();
    return (await findBySha(db, input.userId, staged.sha256))!;
  } finally {
    await staged.discard();
  }
}

async function findBySha(db: Database, userId: number, sha256: string): Promise<FileRow | undefined> {
  const [row] = await db.select().from(files).where(and(eq(files.userId, userId), eq(files.sha256, sha256)));
  return row;
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
