import fs from "node:fs";
import path from "node:path";

/** The upload went past the archive limit; nothing of it is kept. */
export class UploadTooLargeError extends Error {
  override name = "UploadTooLargeError";
  constructor(readonly limitBytes: number) {
    super(`The archive is larger than the ${limitBytes / 1024 / 1024} MiB limit`);
  }
}

/**
 * Streams an upload to a new file under `dir`, chunk by chunk, so the archive is never held whole
 * in memory; stops and removes the file as soon as it passes `limitBytes`. Returns the file's name.
 */
export async function saveUpload(body: ReadableStream<Uint8Array> | null, dir: string, limitBytes: number): Promise<{ name: string; bytes: number }> {
  await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
  const name = `${crypto.randomUUID()}.zip`;
  const file = path.join(dir, name);
  const handle = await fs.promises.open(file, "wx", 0o600);
  let bytes = 0;
  try {
    if (body) {
      const reader = body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        if (bytes > limitBytes) {
          await reader.cancel().catch(() => {});
          throw new UploadTooLargeError(limitBytes);
        }
        await handle.write(value);
      }
    }
    await handle.close();
    return { name, bytes };
  } catch (error) {
    await handle.close().catch(() => {});
    await fs.promises.rm(file, { force: true });
    throw error;
  }
}
