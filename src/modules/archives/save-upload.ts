import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { InvalidInputError } from "../errors";
import type { UploadRoom } from "../imports/pending-uploads";

/** The upload went past its limit; nothing of it is kept. */
export class UploadTooLargeError extends Error {
  override name = "UploadTooLargeError";
  constructor(readonly limitBytes: number) {
    super(`The upload is larger than the ${limitBytes / 1024 / 1024} MiB limit`);
  }
}

/**
 * Streams an upload (an archive, a recording) to a new file under `dir`, chunk by chunk, so it is
 * never held whole in memory; stops and removes the file as soon as it passes `limitBytes`, or as
 * soon as `onProgress` (told the bytes so far) throws. Returns the file's name, its size and its
 * SHA-256 (hex).
 */
export async function saveUpload(
  body: ReadableStream<Uint8Array> | null,
  dir: string,
  limitBytes: number,
  { prefix = "", suffix = ".zip", onProgress }: { prefix?: string; suffix?: string; onProgress?: (bytes: number) => void } = {},
): Promise<{ name: string; bytes: number; sha256: string }> {
  await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
  const name = `${prefix}${crypto.randomUUID()}${suffix}`;
  const file = path.join(dir, name);
  const handle = await fs.promises.open(file, "wx", 0o600);
  const hash = createHash("sha256");
  let bytes = 0;
  try {
    if (body) {
      const reader = body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          bytes += value.byteLength;
          if (bytes > limitBytes) throw new UploadTooLargeError(limitBytes);
          onProgress?.(bytes);
          hash.update(value);
          await handle.write(value);
        }
      } catch (error) {
        await reader.cancel().catch(() => {});
        throw error;
      }
    }
    await handle.close();
    return { name, bytes, sha256: hash.digest("hex") };
  } catch (error) {
    await handle.close().catch(() => {});
    await fs.promises.rm(file, { force: true });
    throw error;
  }
}

/**
 * saveUpload counted against the user's waiting uploads (`room`): an empty body is refused with
 * `emptyMessage`, and a file that fails either check is removed. `remove` deletes the saved file,
 * for the caller whose task could not be made.
 */
export async function saveCountedUpload(
  room: UploadRoom,
  body: ReadableStream<Uint8Array> | null,
  dir: string,
  limitBytes: number,
  { prefix, suffix, emptyMessage }: { prefix?: string; suffix?: string; emptyMessage: string },
): Promise<{ saved: { name: string; bytes: number; sha256: string }; remove: () => void }> {
  const saved = await saveUpload(body, dir, limitBytes, { prefix, suffix, onProgress: room.grow });
  const remove = () => fs.rmSync(path.join(dir, saved.name), { force: true });
  if (saved.bytes === 0) {
    remove();
    throw new InvalidInputError(emptyMessage);
  }
  await room.confirm(saved.bytes).catch((error: unknown) => {
    remove();
    throw error;
  });
  return { saved, remove };
}
