// The OCR process: spawned by the worker (ocr-process.ts), it loads the models once and reads one
// picture at a time, asked over IPC with a file's path. Its memory is its own: each answer says how
// much it holds, and past its bound the worker replaces it with a fresh one.
import fs from "node:fs";
import { decodePicture, PictureError } from "./decode-picture";
import { OcrEngine } from "./engine";
import { parseOcrRequest, type OcrReply } from "./ocr-messages";

const threads = Number(process.env.OCR_THREADS) || 2;
/** A stored file is at most 10 MiB; a path to anything larger is not a stored picture. */
const MAX_PICTURE_BYTES = 16 * 1024 * 1024;

const send = (reply: OcrReply) => process.send!(reply);

const engine = await OcrEngine.load(threads).catch((error: unknown) => {
  send({ type: "failed", error: `the OCR models could not be loaded: ${(error as Error).message}` });
  process.exit(1);
});
// The worker gone (its IPC channel closed): nothing will ask any more.
process.on("disconnect", () => process.exit(0));

let queue = Promise.resolve();
process.on("message", (message: unknown) => {
  queue = queue.then(() => answer(message));
});
send({ type: "ready", pid: process.pid });

async function answer(message: unknown): Promise<void> {
  const request = parseOcrRequest(message);
  if (!request) return;
  const started = performance.now();
  let reply: OcrReply;
  try {
    const size = fs.statSync(request.path).size;
    if (size > MAX_PICTURE_BYTES) throw new PictureError(`${size} bytes is more than a stored picture holds`);
    const pixels = await decodePicture(fs.readFileSync(request.path));
    const lines = await engine.read(pixels);
    reply = { type: "read", id: request.id, lines, ms: performance.now() - started, rss: process.memoryUsage().rss };
  } catch (error) {
    const picture = error instanceof PictureError || (error as { code?: string }).code === "ENOENT";
    reply = { type: picture ? "unreadable" : "error", id: request.id, error: (error as Error).message, rss: process.memoryUsage().rss };
  }
  send(reply);
}
