import type { Database } from "../../db/client";
import type { ChangePublisher } from "../events/change";
import { insertAndQueueTask } from "../imports/create-task";
import type { ImportQueue } from "../imports/import-queue";
import { type PendingUploads, withUploadRoom } from "../imports/pending-uploads";
import type { TaskRecord } from "../imports/schemas";
import { ARCHIVE_BODY_LIMIT, type ArchiveFormat } from "./limits";
import { saveCountedUpload } from "./save-upload";

/**
 * POST /api/tasks/archive: saves the upload under DATA_DIR/archives, writes the task as pending
 * and queues its job; as for single imports, a queue that cannot be reached deletes both again (503).
 */
export async function createArchiveTask({
  ctx,
  input,
}: {
  ctx: { db: Database; userId: number; importQueue: ImportQueue; changes: ChangePublisher; archivesDir: string; pendingUploads: PendingUploads };
  /** `declaredBytes`: the body's Content-Length, null when it streams without one. */
  input: { format: ArchiveFormat; body: ReadableStream<Uint8Array> | null; declaredBytes: number | null };
}): Promise<TaskRecord> {
  return withUploadRoom(ctx, input.declaredBytes, async (room) => {
    const { saved: upload, remove } = await saveCountedUpload(room, input.body, ctx.archivesDir, ARCHIVE_BODY_LIMIT, {
      emptyMessage: "The request body is empty: send the ZIP archive as the body (Content-Type: application/zip)",
    });
    return insertAndQueueTask(ctx, { platform: "archive", archiveFile: upload.name, archiveFormat: input.format, uploadBytes: upload.bytes }, remove);
  });
}
