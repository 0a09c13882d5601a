import fs from "node:fs";
import type { Database } from "../db/client";
import { log } from "../log";
import { blobPath, type FileStorage } from "../modules/files/blob-store";
import { servingHeaders } from "../modules/files/file-types";
import { sharedMarkdownText } from "../modules/shares/render-markdown";
import { RenderedPages } from "../modules/shares/rendered-pages";
import { missingSharePage, SHARE_PAGE_CSP } from "../modules/shares/share-page";
import { findSharedFile, findSharedNote, readSharedText } from "../modules/shares/shared-note";
import { AddressRateLimit, type RateLimitPolicy } from "./address-rate-limit";
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
 * Per client address, over every request under /s/: a page with 50 pictures and a few reloads at
 * once, then 5 a second (300 a minute). What one address can make the server do stays bounded.
 */
export const SHARE_RATE_LIMIT: RateLimitPolicy = { burst: 300, perSecond: 5 };

export interface ShareRouteOptions {
  db: Database;
  files?: FileStorage;
  /** The rendered pages kept for readers; one per process unless a test brings its own. */
  pages?: RenderedPages;
  limit?: AddressRateLimit;
}

/**
 * `GET /s/<token>` (the page), `/s/<token>.md` (the Markdown) and `/s/<token>/files/<id>` (a
 * stored image the note shows): public, no credential. Anything that does not resolve to a
 * shared note now is the same 404 page.
 */
export function createShareRoutes({ db, files, pages = new RenderedPages(), limit = new AddressRateLimit(SHARE_RATE_LIMIT) }: ShareRouteOptions) {
  const missing = (method: string) =>
    new Response(method === "HEAD" ? null : missingSharePage(), {
      status: 404,
      headers: { ...COMMON_HEADERS, "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": SHARE_PAGE_CSP },
    });

  return async function serveShare(request: Request, clientAddress: string): Promise<Response> {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return edgeError("METHOD_NOT_SUPPORTED", `${request.method} is not allowed on a share link; use GET`, { Allow: "GET, HEAD" });
    }
    const retryAfter = limit.take(clientAddress);
    if (retryAfter !== null) {
      return edgeError("TOO_MANY_REQUESTS", "Too many requests for shared notes from your address; try again shortly", { ...COMMON_HEADERS, "Retry-After": String(retryAfter) });
    }
    const match = PATH.exec(new URL(request.url).pathname);
    if (!match) return missing(request.method);
    const [, token, markdown, fileId] = match;
    try {
      const note = await findSharedNote(db, token!);
      if (!note) return missing(request.method);
      const body = (text: string) => (request.method === "HEAD" ? null : text);
      if (fileId === undefined && !markdown) {
        const cached = pages.find(note.token, note.updatedAt);
        const text = cached === null ? await readSharedText(db, note) : null;
        if (cached === null && !text) return missing(request.method);
        return new Response(body(cached ?? pages.render(text!)), {
          headers: { ...COMMON_HEADERS, "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": SHARE_PAGE_CSP },
        });
      }
      const text = await readSharedText(db, note);
      if (!text) return missing(request.method);
      if (markdown) {
        if (fileId !== undefined) return missing(request.method);
        return new Response(body(sharedMarkdownText(text.content, text.token)), {
          headers: { ...COMMON_HEADERS, "Content-Type": "text/markdown; charset=utf-8", "Content-Security-Policy": "default-src 'none'; sandbox" },
        });
      }
      if (!/^[1-9]\d{0,15}$/.test(fileId!) || !files) return missing(request.method);
      const file = await findSharedFile(db, text, Number(fileId));
      const bytes = file && blobPath(files.dir, file.sha256);
      if (!file || !bytes || !fs.existsSync(bytes)) return missing(request.method);
      return new Response(request.method === "HEAD" ? null : Bun.file(bytes), {
        headers: { ...COMMON_HEADERS, "Content-Security-Policy": "default-src 'none'; sandbox", ...servingHeaders(file.id, file.mime), "Content-Length": String(file.size) },
      });
    } catch (error) {
      log.error("a share link could not be served", error);
      return edgeError("INTERNAL_SERVER_ERROR", "Internal server error");
    }
  };
}
