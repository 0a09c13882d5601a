import path from "node:path";
import type { Database } from "../../db/client";
import { saveCountedUpload } from "../archives/save-upload";
import type { ChangePublisher } from "../events/change";
import { insertAndQueueTask } from "../imports/create-task";
import type { ImportQueue } from "../imports/import-queue";
import { type PendingUploads, withUploadRoom } from "../imports/pending-uploads";
import type { TaskRecord } from "../imports/schemas";
import { checkDocumentBytes } from "./document-bytes";
import { type DocumentKind, KIND_MIME, KIND_NAMES } from "./document-kinds";
import { fileExtension } from "../files/file-types";

/** What an uploaded document's task keeps beside its file until it ends (in the task's `content`). */
export interface DocumentUpload {
  title?: string;
  filename?: string;
  /** When it was uploaded (ISO 8601): the title of last resort. */
  uploaded_at: string;
}

/**
 * POST /api/tasks/document: streams the document to DATA_DIR/archives (where uploads wait for
 * their tasks), checks its bytes against its type (a 415 removes it), then queues the task that
 * makes it a note.
 */
export async function createDocumentTask({
  ctx,
  input,
}: {
  ctx: { db: Database; userId: number; importQueue: ImportQueue; changes: ChangePublisher; uploadsDir: string; pendingUploads: PendingUploads; maxBytes: number };
  /** `declaredBytes`: the body's Content-Length, null when it streams without one. */
  input: { kind: DocumentKind; title?: string; filename?: string; body: ReadableStream<Uint8Array> | null; declaredBytes: number | null };
}): Promise<TaskRecord> {
  return withUploadRoom(ctx, input.declaredBytes, async (room) => {
    // Too large: saveUpload's UploadTooLargeError, answered 413 by the route; past the user's pending cap, a 429.
    const { saved, remove } = await saveCountedUpload(room, input.body, ctx.uploadsDir, ctx.maxBytes, {
      prefix: "document-",
      suffix: `.${fileExtension(KIND_MIME[input.kind])}`,
      emptyMessage: `The request body is empty: send the ${KIND_NAMES[input.kind]} document as the body`,
    });
    try {
      await checkDocumentBytes(path.join(ctx.uploadsDir, saved.name), input.kind);
    } catch (error) {
      remove();
      throw error;
    }
    const upload: DocumentUpload = { title: input.title, filename: input.filename, uploaded_at: new Date().toISOString() };
    return insertAndQueueTask(
      ctx,
      { platform: "document", url: null, archiveFile: saved.name, archiveFormat: input.kind, content: JSON.stringify(upload), uploadBytes: saved.bytes },
      remove,
    );
  });
}
