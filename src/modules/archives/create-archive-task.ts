import type { Database } from "../../db/client";
import type { ChangePublisher } from "../events/change";
import { InvalidInputError } from "../errors";
import { insertAndQueueTask } from "../imports/create-task";
import type { ImportQueue } from "../imports/import-queue";
import type { TaskRecord } from "../imports/schemas";
import { ARCHIVE_BODY_LIMIT, type ArchiveFormat } from "./limits";
import { removeArchiveFile } from "./archive-file";
import { saveUpload } from "./save-upload";

/**
 * POST /api/tasks/archive: saves the upload under DATA_DIR/archives, writes the task as pending
 * and queues its job; as for single imports, a queue that cannot be reached deletes both again (503).
 */
export async function createArchiveTask({
  ctx,
  input,
}: {
  ctx: { db: Database; userId: number; importQueue: ImportQueue; changes: ChangePublisher; archivesDir: string };
  input: { format: ArchiveFormat; body: ReadableStream<Uint8Array> | null };
}): Promise<TaskRecord> {
  const upload = await saveUpload(input.body, ctx.archivesDir, ARCHIVE_BODY_LIMIT);
  if (upload.bytes === 0) {
    removeArchiveFile(ctx.archivesDir, upload.name);
    throw new InvalidInputError("The request body is empty: send the ZIP archive as the body (Content-Type: application/zip)");
  }
  return insertAndQueueTask(ctx, { platform: "archive", archiveFile: upload.name, archiveFormat: input.format }, () =>
    removeArchiveFile(ctx.archivesDir, upload.name),
  );
}
