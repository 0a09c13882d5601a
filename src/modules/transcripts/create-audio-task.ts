import type { Database } from "../../db/client";
import { saveCountedUpload } from "../archives/save-upload";
import type { ChangePublisher } from "../events/change";
import { insertAndQueueTask } from "../imports/create-task";
import type { ImportQueue } from "../imports/import-queue";
import { type PendingUploads, withUploadRoom } from "../imports/pending-uploads";
import type { PendingTranscription } from "../imports/run-import";
import type { TaskRecord } from "../imports/schemas";
import { importedTitle } from "../notes/note-text";

/** CONTRACT "Transcripts": a recording of at most 256 MiB. */
export const AUDIO_BODY_LIMIT = 256 * 1024 * 1024;

/**
 * POST /api/tasks/audio: streams the recording to DATA_DIR/media (hashing it on the way, so the
 * same recording uploaded again by the same user reuses its transcript), then queues the task; its
 * note is the transcript, titled `title` or the time of upload.
 */
export async function createAudioTask({
  ctx,
  input,
}: {
  ctx: { db: Database; userId: number; importQueue: ImportQueue; changes: ChangePublisher; mediaDir: string; pendingUploads: PendingUploads };
  /** `declaredBytes`: the body's Content-Length, null when it streams without one. */
  input: { title?: string; type: string; body: ReadableStream<Uint8Array> | null; declaredBytes: number | null };
}): Promise<TaskRecord> {
  return withUploadRoom(ctx, input.declaredBytes, async (room) => {
    // Too large: saveUpload's UploadTooLargeError, answered 413 by the route; past the user's pending cap, a 429.
    const { saved, remove } = await saveCountedUpload(room, input.body, ctx.mediaDir, AUDIO_BODY_LIMIT, {
      prefix: "upload-",
      suffix: ".media",
      emptyMessage: "The request body is empty: send the recording as the body (Content-Type: audio/… or video/mp4)",
    });
    return queueTranscription(ctx, input, saved, remove);
  });
}

function queueTranscription(
  ctx: { db: Database; userId: number; importQueue: ImportQueue; changes: ChangePublisher },
  input: { title?: string },
  saved: { name: string; bytes: number; sha256: string },
  remove: () => void,
): Promise<TaskRecord> {
  const now = new Date();
  const title = importedTitle(input.title ?? "") || `Recording of ${now.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const pending: PendingTranscription = {
    document: {
      title,
      markdown: "",
      tags: [],
      media: { key: `audio:${ctx.userId}:${saved.sha256}`, source: { upload: saved.name } },
    },
  };
  return insertAndQueueTask(ctx, { platform: "audio", url: null, transcription: JSON.stringify(pending), uploadBytes: saved.bytes }, remove);
}
