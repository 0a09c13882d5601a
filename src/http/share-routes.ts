import fs from "node:fs";
import type { Database } from "../db/client";
import { log } from "../log";
import { blobPath, type FileStorage } from "../modules/files/blob-store";
import { renderSharedMarkdown, sharedMarkdownText } from "../modules/shares/render-markdown";
import { missingSharePage, SHARE_PAGE_CSP, sharePage } from "../modules/shares/share-page";
import { findSharedFile, findSharedNote } from "../modules/shares/shared-note";
import { edgeError } from "./error-response";

/** Every answer under /s/: never indexed, never cached past a revocation, never sent on as a referrer. */
const COMMON_HEADERS = {
  "X-Robots-Tag": "noindex, nofollow",
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
  "Cache-Control": "no-store",
};
const PATH = /^\/s\/([^/]+?)(\.md)?(?:\/files\/([^/]*))?$/;

/**
 * `GET /s/<token>` (the page), `/s/<token>.md` (the Markdown) and `/s/<token>/files/<id>` (a
 * stored image the note shows): public, no credential. Anything that does not resolve to a
 * shared note now is the same 404 page.
 */
export function createShareRoutes(services: { db: Database; files?: FileStorage }) {
  const missing = (method: string) =>
    new Response(method === "HEAD" ? null : missingSharePage(), {
      status: 404,
      headers: { ...COMMON_HEADERS, "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": SHARE_PAGE_CSP },
    });

  return async function serveShare(request: Request): Promise<Response> {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return edgeError("METHOD_NOT_SUPPORTED", `${request.method} is not allowed on a share link; use GET`, { Allow: "GET, HEAD" });
    }
    const match = PATH.exec(new URL(request.url).pathname);
    if (!match) return missing(request.method);
    const [, token, markdown, fileId] = match;
    try {
      const note = await findSharedNote(services.db, token!);
      if (!note) return missing(request.method);
      const body = (text: string) => (request.method === "HEAD" ? null : text);
      if (fileId !== undefined) {
        if (markdown || !/^[1-9]\d{0,15}$/.test(fileId) || !services.files) return missing(request.method);
        const file = await findSharedFile(services.db, note, Number(fileId));
        const bytes = file && blobPath(services.files.dir, file.sha256);
        if (!file || !bytes || !fs.existsSync(bytes)) return missing(request.method);
        return new Response(request.method === "HEAD" ? null : Bun.file(bytes), {
          headers: { ...COMMON_HEADERS, "Content-Type": file.mime, "Content-Length": String(file.size), "Content-Security-Policy": "default-src 'none'; sandbox" },
        });
      }
      if (markdown) {
        return new Response(body(sharedMarkdownText(note.content, note.token)), {
          headers: { ...COMMON_HEADERS, "Content-Type": "text/markdown; charset=utf-8", "Content-Security-Policy": "default-src 'none'; sandbox" },
        });
      }
      return new Response(body(sharePage(note, renderSharedMarkdown(note.content, note.token))), {
        headers: { ...COMMON_HEADERS, "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": SHARE_PAGE_CSP },
      });
    } catch (error) {
      log.error("a share link could not be served", error);
      return edgeError("INTERNAL_SERVER_ERROR", "Internal server error");
    }
  };
}
