import fs from "node:fs";
import type { Database } from "../db/client";
import { authenticateFor } from "../modules/auth/authenticate";
import type { Access } from "../modules/tokens/scopes";
import { blobPath, MAX_FILE_BYTES, type FileStorage } from "../modules/files/blob-store";
import { toFileRecord } from "../modules/files/file-record";
import { servingHeaders } from "../modules/files/file-types";
import { getFile } from "../modules/files/get-file";
import { storeFile } from "../modules/files/store-file";
import { log } from "../log";
import { edgeError, formatBytes, jsonError, serviceErrorResponse } from "./error-response";

/** Stored files never change under their id: a client may keep them for a year. */
const CACHE_CONTROL = "private, max-age=31536000, immutable";

/**
 * `POST /api/files` and `GET /api/files/{id}`: plain routes, since one takes a raw image of up to
 * 10 MiB (past the procedures' 2 MiB, streamed to disk) and the other answers with bytes.
 */
export function createFileRoutes(services: { db: Database; files?: FileStorage }) {
  const authenticate = async (request: Request, access: Access) => (await authenticateFor(services.db, request.headers.get("authorization"), access)).user.id;
  const tooLarge = () => edgeError("PAYLOAD_TOO_LARGE", `Request body is larger than the ${formatBytes(MAX_FILE_BYTES)} limit`);
  const unavailable = () => edgeError("SERVICE_UNAVAILABLE", "File storage is not set up on this server", { "Retry-After": "5" });

  async function upload(request: Request): Promise<Response> {
    if (request.method !== "POST") return edgeError("METHOD_NOT_SUPPORTED", `${request.method} is not allowed on /api/files; use POST`, { Allow: "POST" });
    try {
      const userId = await authenticate(request, "notes:write");
      if (Number(request.headers.get("content-length") ?? NaN) > MAX_FILE_BYTES) return tooLarge();
      if (!services.files) return unavailable();
      if (!request.body || request.headers.get("content-length") === "0") {
        return edgeError("BAD_REQUEST", "Send the image as the raw request body");
      }
      const row = await storeFile({ db: services.db, storage: services.files }, { userId, body: request.body });
      return Response.json(toFileRecord(row), { status: 201, headers: { Location: `/api/files/${row.id}` } });
    } catch (error) {
      return serviceErrorResponse(error, "POST /api/files");
    }
  }

  async function read(request: Request, idText: string): Promise<Response> {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return edgeError("METHOD_NOT_SUPPORTED", `${request.method} is not allowed on /api/files/{id}; use GET`, { Allow: "GET, HEAD" });
    }
    try {
      const userId = await authenticate(request, "notes:read");
      if (!/^[1-9]\d{0,15}$/.test(idText)) {
        return jsonError(400, { code: "BAD_REQUEST", message: "Input validation failed", issues: [{ path: ["id"], message: "Must be a positive integer" }] });
      }
      const row = await getFile({ ctx: { db: services.db, userId }, input: { id: Number(idText) } });
      if (!services.files) return unavailable();
      const etag = `"${row.sha256}"`;
      const headers = { ETag: etag, "Cache-Control": CACHE_CONTROL, "X-Content-Type-Options": "nosniff" };
      if (matchesEtag(request.headers.get("if-none-match"), row.sha256)) return new Response(null, { status: 304, headers });
      const file = blobPath(services.files.dir, row.sha256);
      if (!fs.existsSync(file)) {
        log.error(`stored file ${row.id} has no bytes at ${file}`);
        return edgeError("NOT_FOUND", `File ${row.id} not found`);
      }
      const body = request.method === "HEAD" ? null : Bun.file(file);
      // A picture is shown; a document's original (a PDF, an HTML page) is only ever downloaded.
      return new Response(body, { headers: { ...headers, ...servingHeaders(row.id, row.mime), "Content-Length": String(row.size) } });
    } catch (error) {
      return serviceErrorResponse(error, "GET /api/files/{id}");
    }
  }

  return { upload, read };
}

/** `If-None-Match`: `*`, or a list of (possibly weak) tags, one of which is ours. */
function matchesEtag(header: string | null, sha256: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "").replace(/^"|"$/g, "") === sha256);
}
