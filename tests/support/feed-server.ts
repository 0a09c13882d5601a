import { gzipSync, brotliCompressSync, deflateSync } from "node:zlib";
import { readFeedFixture } from "./feed-fixtures";

export interface FeedRequest {
  path: string;
  ifNoneMatch: string | null;
  ifModifiedSince: string | null;
  acceptEncoding: string | null;
}

/** A served document: its body, type and validators, and how the server answers for it. */
export interface ServedFeed {
  body: string | Uint8Array;
  type: string;
  etag?: string;
  lastModified?: string;
  /** Sent compressed (when the client accepts it). */
  encoding?: "gzip" | "br" | "deflate";
  /** Answered instead of the body while set. */
  status?: number;
  retryAfter?: string;
  /** A redirect's target path (the status says permanent or not). */
  location?: string;
}

/**
 * A loopback server that answers like real feed hosts: ETag and Last-Modified with 304 for a
 * matching conditional request, compressed bodies, 429 with Retry-After, redirects; every request
 * is logged. Fixtures are served with `ORIGIN` replaced by this server's origin, so their links
 * (item pages, pictures, enclosures) lead back here.
 */
export function startFeedServer() {
  const routes = new Map<string, ServedFeed>();
  const requests: FeedRequest[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      const path = url.pathname + url.search;
      requests.push({ path, ifNoneMatch: request.headers.get("if-none-match"), ifModifiedSince: request.headers.get("if-modified-since"), acceptEncoding: request.headers.get("accept-encoding") });
      const served = routes.get(path) ?? routes.get(url.pathname);
      if (!served) return new Response("Not Found", { status: 404 });
      if (served.location) return new Response(null, { status: served.status ?? 301, headers: { location: served.location } });
      if (served.status) return new Response("refused", { status: served.status, headers: served.retryAfter ? { "retry-after": served.retryAfter } : {} });
      const validators: Record<string, string> = {};
      if (served.etag) validators.etag = served.etag;
      if (served.lastModified) validators["last-modified"] = served.lastModified;
      const unchanged = (served.etag && request.headers.get("if-none-match") === served.etag) || (!served.etag && served.lastModified && request.headers.get("if-modified-since") === served.lastModified);
      if (unchanged) return new Response(null, { status: 304, headers: validators });
      let body: string | Uint8Array = served.body;
      const headers: Record<string, string> = { "content-type": served.type, ...validators };
      if (served.encoding && (request.headers.get("accept-encoding") ?? "").includes(served.encoding)) {
        const bytes = typeof body === "string" ? Buffer.from(body) : body;
        body = served.encoding === "gzip" ? gzipSync(bytes) : served.encoding === "br" ? brotliCompressSync(bytes) : deflateSync(bytes);
        headers["content-encoding"] = served.encoding;
      }
      return new Response(body as BodyInit, { headers });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    origin,
    routes,
    requests,
    url: (path: string) => `${origin}${path}`,
    /** A fixture with its example origins pointed here. */
    fixture(name: string, replace: Record<string, string> = {}): string {
      let text = readFeedFixture(name);
      for (const [from, to] of Object.entries(replace)) text = text.replaceAll(from, to.replace("ORIGIN", origin));
      return text;
    },
    serve(path: string, feed: ServedFeed) {
      routes.set(path, feed);
    },
    requestsTo: (path: string) => requests.filter((request) => request.path === path),
    stop: () => server.stop(true),
  };
}
