import fs from "node:fs";
import path from "node:path";
import type { importTasks } from "../../db/schema";
import { ImportError } from "../imports/import-error";
import type { ImportRun } from "../imports/run-import";
import { importDocumentFile } from "./run-document-import";

type Task = typeof importTasks.$inferSelect;

/**
 * A web import whose link answers with a PDF: the PDF is downloaded (under DOCUMENT_MAX_MB and the
 * import's address rules) to DATA_DIR/archives and read as an uploaded one is, with the link as the
 * note's source. Its title: the PDF's own, else the file name in the link, else the link's host.
 */
export async function importLinkedDocument(run: ImportRun, task: Task, url: string, update: (fields: Partial<typeof importTasks.$inferInsert>) => Promise<void>): Promise<void> {
  if (!run.downloadDocument) {
    throw new ImportError("This link serves a PDF document (application/pdf), which this server does not import from links. Upload the PDF instead.", { permanent: true });
  }
  const dir = run.archivesDir ?? "";
  await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `web-${task.id}.pdf`);
  await update({ progress: 5, message: `Downloading the PDF from ${new URL(url).host}` });
  try {
    const handle = await fs.promises.open(file, "w", 0o600);
    try {
      await run.downloadDocument(url, { signal: run.signal }, async (body) => {
        for await (const chunk of body) await handle.write(chunk);
      });
    } finally {
      await handle.close();
    }
    const head = Buffer.alloc(5);
    const fd = fs.openSync(file, "r");
    fs.readSync(fd, head, 0, 5, 0);
    fs.closeSync(fd);
    if (head.toString("latin1") !== "%PDF-") throw new ImportError("The link says it serves a PDF, but what it sent is not one.", { permanent: true });
    await importDocumentFile(run, task, update, { file, kind: "pdf", titles: ["own", fileNameOf(url)], untitled: `PDF from ${new URL(url).host}`, sourceUrl: url });
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/** The last part of the link's path, decoded, when it names a file (`report.pdf`). */
function fileNameOf(url: string): string | undefined {
  const last = new URL(url).pathname.split("/").at(-1) ?? "";
  try {
    const name = decodeURIComponent(last);
    return /\.\w{1,5}$/.test(name) ? name : undefined;
  } catch {
    return undefined;
  }
}
