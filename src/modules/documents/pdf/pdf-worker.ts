// A PDF read in a thread of its own (see read-pdf-in-thread.ts): PDF.js's work never holds the
// process's event loop, and a file that keeps it busy past its time is stopped by ending the thread.
import { ImportError } from "../../imports/import-error";
import { readPdf } from "./read-pdf";
import type { FromThread, ToThread } from "./read-pdf-in-thread";

declare const self: Worker;

const pictures = new Map<number, (url: string | null) => void>();
let nextPicture = 0;
const send = (message: FromThread, transfer: Transferable[] = []) => self.postMessage(message, transfer);

self.onmessage = async (event: MessageEvent<ToThread>) => {
  const message = event.data;
  if (message.type === "picture") {
    pictures.get(message.id)?.(message.url);
    pictures.delete(message.id);
    return;
  }
  try {
    const reading = await readPdf(message.file, {
      ...message.options,
      signal: new AbortController().signal,
      storePicture: (png, page) =>
        new Promise((resolve) => {
          const id = nextPicture++;
          pictures.set(id, resolve);
          send({ type: "picture", id, page, png }, [png.buffer as ArrayBuffer]);
        }),
      onProgress: (done, total) => send({ type: "progress", done, total }),
    });
    send({ type: "done", reading });
  } catch (error) {
    send({ type: "failed", message: error instanceof ImportError ? error.message : "The PDF could not be read.", permanent: error instanceof ImportError ? error.permanent : true });
  }
};
