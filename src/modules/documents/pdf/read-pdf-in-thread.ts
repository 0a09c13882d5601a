import { ImportError } from "../../imports/import-error";
import type { PdfReading, ReadPdfOptions } from "./read-pdf";

/** What the reading thread is told: a file to read (with the plain options), or where a picture it sent was kept. */
export type ToThread =
  | { type: "read"; file: string; options: Pick<ReadPdfOptions, "maxBytes" | "maxPictures" | "deadline"> }
  | { type: "picture"; id: number; url: string | null };

/** What the reading thread tells: a picture to keep, progress, the reading, or why it failed. */
export type FromThread =
  | { type: "picture"; id: number; page: string; png: Uint8Array }
  | { type: "progress"; done: number; total: number }
  | { type: "done"; reading: PdfReading }
  | { type: "failed"; message: string; permanent: boolean };

/**
 * readPdf in a worker thread: the pictures it finds are kept (and its progress reported) here, and a
 * PDF still being read `hardLimitMs` after it began — a file that keeps PDF.js busy on one page, past
 * the reading's own deadline between pages — ends the thread and fails the task.
 */
export function readPdfInThread(file: string, options: ReadPdfOptions, hardLimitMs: number): Promise<PdfReading> {
  const thread = new Worker(new URL("./pdf-worker.ts", import.meta.url).href);
  const tell = (message: ToThread) => thread.postMessage(message);
  return new Promise<PdfReading>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      thread.terminate();
      outcome();
    };
    const timer = setTimeout(
      () => finish(() => reject(new ImportError(`The PDF took longer than ${Math.max(1, Math.round(hardLimitMs / 60_000))} minutes to read; it may be damaged.`, { permanent: true }))),
      hardLimitMs,
    );
    const onAbort = () => finish(() => reject(options.signal.reason));
    options.signal.addEventListener("abort", onAbort, { once: true });
    thread.onerror = (event) => finish(() => reject(new Error(`the PDF reading thread failed: ${event.message}`)));
    thread.onmessage = (event: MessageEvent<FromThread>) => {
      const message = event.data;
      if (message.type === "picture") {
        options.storePicture(message.png, message.page).then(
          (url) => tell({ type: "picture", id: message.id, url }),
          (error: unknown) => finish(() => reject(error)),
        );
      } else if (message.type === "progress") {
        Promise.resolve(options.onProgress?.(message.done, message.total)).catch(() => {});
      } else if (message.type === "done") finish(() => resolve(message.reading));
      else finish(() => reject(new ImportError(message.message, { permanent: message.permanent })));
    };
    tell({ type: "read", file, options: { maxBytes: options.maxBytes, maxPictures: options.maxPictures, deadline: options.deadline } });
  });
}
