import type { Database } from "../db/client";
import { authenticateFor } from "../modules/auth/authenticate";
import type { ChangePublisher } from "../modules/events/change";
import type { ImportQueue } from "../modules/imports/import-queue";
import type { PendingUploads } from "../modules/imports/pending-uploads";
import { UploadTooLargeError } from "../modules/archives/save-upload";
import { AUDIO_BODY_LIMIT, createAudioTask } from "../modules/transcripts/create-audio-task";
import { edgeError, formatBytes, jsonError, serviceErrorResponse } from "./error-response";
import { declaredLength, mediaType } from "./request-body";

const MAX_TITLE_CHARS = 500;

/**
 * POST /api/tasks/audio?title=: a recording as the raw body (audio/* or video/mp4, up to 256 MiB,
 * streamed to disk), transcribed by a task whose note is the transcript.
 */
export function createAudioUploadRoute(services: { db: Database; importQueue: ImportQueue; changes: ChangePublisher; mediaDir?: string; pendingUploads: PendingUploads }) {
  return async function handleAudioUpload(request: Request): Promise<Response> {
    if (request.method !== "POST") return edgeError("METHOD_NOT_SUPPORTED", `${request.method} is not allowed on /api/tasks/audio; use POST`, { Allow: "POST" });
    let userId: number;
    try {
      userId = (await authenticateFor(services.db, request.headers.get("authorization"), "imports")).user.id;
    } catch (error) {
      return serviceErrorResponse(error, "POST /api/tasks/audio");
    }
    const title = new URL(request.url).searchParams.get("title") ?? undefined;
    if (title !== undefined && title.length > MAX_TITLE_CHARS) {
      return jsonError(400, { code: "BAD_REQUEST", message: "Input validation failed", issues: [{ path: ["title"], message: `Must be at most ${MAX_TITLE_CHARS} characters` }] });
    }
    const type = mediaType(request);
    if (!(type.startsWith("audio/") || type === "video/mp4")) {
      return edgeError("UNSUPPORTED_MEDIA_TYPE", "Send the recording as the raw body with Content-Type: audio/… (e.g. audio/mp4, audio/mpeg, audio/wav) or video/mp4");
    }
    const tooLarge = () => edgeError("PAYLOAD_TOO_LARGE", `Request body is larger than the ${formatBytes(AUDIO_BODY_LIMIT)} limit`);
    if (Number(request.headers.get("content-length") ?? NaN) > AUDIO_BODY_LIMIT) return tooLarge();
    if (!services.mediaDir) return edgeError("SERVICE_UNAVAILABLE", "Speech-to-text is not set up on this server (STT_BASE_URL), so recordings cannot be transcribed");
    try {
      const task = await createAudioTask({ ctx: { ...services, mediaDir: services.mediaDir, userId }, input: { title, type, body: request.body, declaredBytes: declaredLength(request) } });
      return Response.json(task, { status: 201 });
    } catch (error) {
      if (error instanceof UploadTooLargeError) return tooLarge();
      return serviceErrorResponse(error, "POST /api/tasks/audio");
    }
  };
}
