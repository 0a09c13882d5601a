import type { Database } from "../db/client";
import { ARCHIVE_BODY_LIMIT, ARCHIVE_FORMATS, type ArchiveFormat } from "../modules/archives/limits";
import { createArchiveTask } from "../modules/archives/create-archive-task";
import { UploadTooLargeError } from "../modules/archives/save-upload";
import { authenticateFor } from "../modules/auth/authenticate";
import type { ChangePublisher } from "../modules/events/change";
import type { ImportQueue } from "../modules/imports/import-queue";
import type { PendingUploads } from "../modules/imports/pending-uploads";
import { edgeError, formatBytes, jsonError, serviceErrorResponse } from "./error-response";
import { declaredLength, mediaType } from "./request-body";

/** ZIP archives arrive under any of these names (Windows browsers send the second). */
const ZIP_TYPES = new Set(["application/zip", "application/x-zip-compressed", "application/octet-stream"]);

/**
 * POST /api/tasks/archive: a plain route, since its body is a raw ZIP of up to 256 MiB (its own
 * limit, past the procedures' ones), streamed to disk rather than parsed as JSON.
 */
export function createArchiveUploadRoute(services: { db: Database; importQueue: ImportQueue; changes: ChangePublisher; archivesDir?: string; pendingUploads: PendingUploads }) {
  return async function handleArchiveUpload(request: Request): Promise<Response> {
    if (request.method !== "POST") return edgeError("METHOD_NOT_SUPPORTED", `${request.method} is not allowed on /api/tasks/archive; use POST`, { Allow: "POST" });
    let userId: number;
    try {
      userId = (await authenticateFor(services.db, request.headers.get("authorization"), "imports")).user.id;
    } catch (error) {
      return serviceErrorResponse(error, "POST /api/tasks/archive");
    }
    const format = new URL(request.url).searchParams.get("format") ?? "auto";
    if (!(ARCHIVE_FORMATS as readonly string[]).includes(format)) {
      return jsonError(400, {
        code: "BAD_REQUEST",
        message: "Input validation failed",
        issues: [{ path: ["format"], message: `Must be one of: ${ARCHIVE_FORMATS.join(", ")}` }],
      });
    }
    if (!ZIP_TYPES.has(mediaType(request))) {
      return edgeError("UNSUPPORTED_MEDIA_TYPE", "Send the archive as the raw body with Content-Type: application/zip");
    }
    const tooLarge = () => edgeError("PAYLOAD_TOO_LARGE", `Request body is larger than the ${formatBytes(ARCHIVE_BODY_LIMIT)} limit`);
    if (Number(request.headers.get("content-length") ?? NaN) > ARCHIVE_BODY_LIMIT) return tooLarge();
    if (!services.archivesDir) return edgeError("SERVICE_UNAVAILABLE", "Archive imports are not set up on this server", { "Retry-After": "5" });
    try {
      const task = await createArchiveTask({
        ctx: { ...services, archivesDir: services.archivesDir, userId },
        input: { format: format as ArchiveFormat, body: request.body, declaredBytes: declaredLength(request) },
      });
      return Response.json(task, { status: 201 });
    } catch (error) {
      if (error instanceof UploadTooLargeError) return tooLarge();
      return serviceErrorResponse(error, "POST /api/tasks/archive");
    }
  };
}
