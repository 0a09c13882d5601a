import type { Database } from "../db/client";
import { UploadTooLargeError } from "../modules/archives/save-upload";
import { authenticateFor } from "../modules/auth/authenticate";
import { createDocumentTask } from "../modules/documents/create-document-task";
import { DOCUMENT_MEDIA_TYPES } from "../modules/documents/document-kinds";
import type { ChangePublisher } from "../modules/events/change";
import type { ImportQueue } from "../modules/imports/import-queue";
import type { PendingUploads } from "../modules/imports/pending-uploads";
import { edgeError, formatBytes, jsonError, serviceErrorResponse } from "./error-response";
import { declaredLength, mediaType } from "./request-body";

const MAX_TITLE_CHARS = 500;
const MAX_FILENAME_CHARS = 255;

/**
 * POST /api/tasks/document?title=&filename=: a PDF, EPUB, DOCX, Markdown, text or HTML document as
 * the raw body (up to DOCUMENT_MAX_MB, streamed to disk), made a note by a task.
 */
export function createDocumentUploadRoute(services: { db: Database; importQueue: ImportQueue; changes: ChangePublisher; uploadsDir?: string; pendingUploads: PendingUploads; maxBytes: number }) {
  return async function handleDocumentUpload(request: Request): Promise<Response> {
    if (request.method !== "POST") return edgeError("METHOD_NOT_SUPPORTED", `${request.method} is not allowed on /api/tasks/document; use POST`, { Allow: "POST" });
    let userId: number;
    try {
      userId = (await authenticateFor(services.db, request.headers.get("authorization"), "imports")).user.id;
    } catch (error) {
      return serviceErrorResponse(error, "POST /api/tasks/document");
    }
    const query = new URL(request.url).searchParams;
    const title = query.get("title") ?? undefined;
    const filename = query.get("filename") ?? undefined;
    const issues = [
      ...(title !== undefined && title.length > MAX_TITLE_CHARS ? [{ path: ["title"], message: `Must be at most ${MAX_TITLE_CHARS} characters` }] : []),
      ...(filename !== undefined && filename.length > MAX_FILENAME_CHARS ? [{ path: ["filename"], message: `Must be at most ${MAX_FILENAME_CHARS} characters` }] : []),
    ];
    if (issues.length > 0) return jsonError(400, { code: "BAD_REQUEST", message: "Input validation failed", issues });
    const kind = DOCUMENT_MEDIA_TYPES[mediaType(request)];
    if (!kind) {
      return edgeError("UNSUPPORTED_MEDIA_TYPE", `Send the document as the raw body with its Content-Type: one of ${Object.keys(DOCUMENT_MEDIA_TYPES).join(", ")}`);
    }
    const tooLarge = () => edgeError("PAYLOAD_TOO_LARGE", `Request body is larger than the ${formatBytes(services.maxBytes)} limit (DOCUMENT_MAX_MB)`);
    if (Number(request.headers.get("content-length") ?? NaN) > services.maxBytes) return tooLarge();
    if (!services.uploadsDir) return edgeError("SERVICE_UNAVAILABLE", "Document imports are not set up on this server", { "Retry-After": "5" });
    try {
      const task = await createDocumentTask({
        ctx: { ...services, uploadsDir: services.uploadsDir, userId },
        input: { kind, title, filename, body: request.body, declaredBytes: declaredLength(request) },
      });
      return Response.json(task, { status: 201 });
    } catch (error) {
      if (error instanceof UploadTooLargeError) return tooLarge();
      return serviceErrorResponse(error, "POST /api/tasks/document");
    }
  };
}
