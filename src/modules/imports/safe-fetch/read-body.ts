import type { IncomingMessage } from "node:http";
import zlib from "node:zlib";
import { errorCode, failure, type Hop } from "./fetch-errors";
import { MIB, type Settings } from "./options";

/** Reads the whole (page) body, under the cap. */
export async function readBody(settings: Settings, hop: Hop, response: IncomingMessage, signal: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of streamBody(settings, hop, response, signal)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Streams the body, stopping as soon as the received or decompressed size passes the cap. */
export async function* streamBody(
  settings: Settings,
  hop: Hop,
  response: IncomingMessage,
  signal: AbortSignal,
): AsyncGenerator<Buffer> {
  const limit = settings.maxBodyBytes;
  const tooLarge = () => failure(hop, `the page is larger than ${formatSize(limit)}`, true);
  if (Number(response.headers["content-length"]) > limit) {
    response.destroy();
    throw tooLarge();
  }
  const decompressor = decompressorFor(hop, response);
  const destroyAll = (error?: unknown) => {
    response.destroy(error as Error | undefined);
    decompressor?.destroy(error as Error | undefined);
  };
  const onAbort = () => destroyAll(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  if (decompressor) {
    let received = 0;
    response.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) destroyAll(tooLarge());
    });
    response.on("error", (error) => decompressor.destroy(error));
    response.pipe(decompressor);
  }
  try {
    let size = 0;
    for await (const chunk of decompressor ?? response) {
      size += (chunk as Buffer).length;
      if (size > limit) throw tooLarge();
      yield chunk as Buffer;
    }
  } catch (error) {
    if (errorCode(error)?.startsWith("Z_") || errorCode(error)?.startsWith("ERR_BROTLI")) {
      throw failure(hop, "the page's compressed body is corrupt", true, error);
    }
    throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
    destroyAll();
  }
}

function decompressorFor(hop: Hop, response: IncomingMessage) {
  const encoding = (headerText(response.headers["content-encoding"]) ?? "").trim().toLowerCase();
  // Browsers accept truncated compressed bodies; so do we.
  const lenient = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  switch (encoding) {
    case "":
    case "identity":
      return null;
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip(lenient);
    case "deflate":
      return zlib.createInflate(lenient);
    case "br":
      return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    default:
      response.destroy();
      throw failure(hop, "the server used an unsupported content encoding", true);
  }
}

export function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function formatSize(bytes: number): string {
  if (bytes % MIB === 0) return `${bytes / MIB} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
