import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { log } from "../../log";
import { SNIFF_BYTES } from "./sniff-image";

/** Where stored images live and how much each user may keep (FILES_DIR, FILES_MAX_BYTES_PER_USER). */
export interface FileStorage {
  dir: string;
  maxBytesPerUser: number;
}

/** The most one file may hold: an upload's body and an imported image alike. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Bytes written to a temporary file, hashed and fsynced, not yet under their content address. */
export interface StagedBlob {
  sha256: string;
  size: number;
  /** The first bytes, for sniffing the type. */
  head: Uint8Array;
  /**
   * Puts the bytes under their address (a no-op when they are there already). The temporary file
   * stays until `discard`, so after a row claims the bytes, `commit` again restores them if a
   * concurrent delete removed them meanwhile.
   */
  commit(): Promise<void>;
  discard(): Promise<void>;
}

export class BlobTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`larger than the ${limitBytes / 1024 / 1024} MiB a file may hold`);
  }
}

/** The one place a blob lives: `<dir>/<first two hex digits>/<sha256>`. */
export function blobPath(dir: string, sha256: string): string {
  return path.join(dir, sha256.slice(0, 2), sha256);
}

const SHA256 = /^[0-9a-f]{64}$/;

/** Every stored blob and when it was written, found where `blobPath` puts them (temporary files aside). */
export async function* storedBlobs(dir: string): AsyncGenerator<{ sha256: string; mtimeMs: number }> {
  for (const shard of await readdirOrEmpty(dir)) {
    for (const name of shard.length === 2 ? await readdirOrEmpty(path.join(dir, shard)) : []) {
      if (!SHA256.test(name) || blobPath(dir, name) !== path.join(dir, shard, name)) continue;
      const stat = await fs.promises.stat(blobPath(dir, name)).catch(() => null);
      if (stat) yield { sha256: name, mtimeMs: stat.mtimeMs };
    }
  }
}

async function readdirOrEmpty(directory: string): Promise<string[]> {
  return fs.promises.readdir(directory).catch(() => []);
}

function tempDir(dir: string): string {
  return path.join(dir, "tmp");
}

/**
 * Streams `chunks` into a temporary file beside the store (same file system, so linking it into
 * place is atomic), hashing as it goes; never more than one chunk in memory. Past `maxBytes` it stops,
 * removes the temporary file and throws BlobTooLargeError. A crash leaves at most a temporary
 * file, which no row points at and `sweepStaleTemps` removes.
 */
export async function stageBlob(dir: string, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, maxBytes = MAX_FILE_BYTES): Promise<StagedBlob> {
  await fs.promises.mkdir(tempDir(dir), { recursive: true });
  // The pid lets a later start tell a dead writer's leftovers from a live one's work in progress.
  const temp = path.join(tempDir(dir), `${process.pid}-${randomUUID()}`);
  const handle = await fs.promises.open(temp, "wx", 0o644);
  const hash = createHash("sha256");
  const head = Buffer.alloc(SNIFF_BYTES);
  let size = 0;
  let closed = false;
  const discard = async () => {
    if (!closed) await handle.close().catch(() => {});
    closed = true;
    await fs.promises.rm(temp, { force: true });
  };
  try {
    for await (const chunk of chunks) {
      if (size < SNIFF_BYTES) Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).copy(head, size);
      size += chunk.byteLength;
      if (size > maxBytes) throw new BlobTooLargeError(maxBytes);
      hash.update(chunk);
      await handle.write(chunk);
    }
    await handle.sync();
    await handle.close();
    closed = true;
  } catch (error) {
    await discard();
    throw error;
  }
  const sha256 = hash.digest("hex");
  return {
    sha256,
    size,
    head: head.subarray(0, Math.min(size, SNIFF_BYTES)),
    discard,
    async commit() {
      const target = blobPath(dir, sha256);
      if (fs.existsSync(target)) return;
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      // A hard link, not a rename: the complete, fsynced file appears atomically under its name.
      try {
        await fs.promises.link(temp, target);
      } catch (error) {
        if ((error as { code?: string }).code !== "EEXIST") throw error;
        return;
      }
      await syncDirectory(path.dirname(target));
    },
  };
}

/** Makes a new name durable: the directory entry is on disk before a row may point at it. */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await fs.promises.open(directory, "r");
  try {
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a directory; the link itself is still atomic.
  } finally {
    await handle.close();
  }
}

/** Removes bytes no row claims any more (see `removeUnclaimedBlobs`, which decides). */
export function removeBlob(dir: string, sha256: string): void {
  // Synchronous: the caller holds SQLite's write lock, and an await here would let the event loop
  // start another write, which waits for that lock without yielding: neither could go on until the
  // busy timeout failed the second one.
  fs.rmSync(blobPath(dir, sha256), { force: true });
}

/** No write takes this long (an image download is bounded at 15 s), so an older temp is a leftover. */
const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * Removes temporary files left by writers that died mid-write (a kill -9, a power cut): those of a
 * process that no longer runs, and any old enough that no live write can own them.
 */
export async function sweepStaleTemps(dir: string, now = Date.now()): Promise<number> {
  let names: string[];
  try {
    names = await fs.promises.readdir(tempDir(dir));
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const file = path.join(tempDir(dir), name);
    const pid = Number(name.split("-")[0]);
    const stat = await fs.promises.stat(file).catch(() => null);
    if (!stat) continue;
    const stale = pid === process.pid ? false : !isRunning(pid) || now - stat.mtimeMs > STALE_TEMP_MS;
    if (!stale) continue;
    await fs.promises.rm(file, { force: true });
    removed++;
  }
  if (removed) log.info(`removed ${removed} unfinished file write(s) left by a stopped process`);
  return removed;
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}
