import { Elysia } from "elysia";
import type { OpenAPIObject } from "trpc-to-openapi";
import type { AnyRouter } from "@trpc/server";
import type { ServiceContext } from "../modules/context";
import type { ChangeFeed } from "../modules/events/change-feed";
import type { TrpcContext } from "../trpc/context";
import { log } from "../log";
import { docsPlugin } from "./docs";
import { edgeError } from "./error-response";
import { bodyLimits, DEFAULT_BODY_LIMIT, REST_PREFIX } from "./procedure-meta";
import { answerWithin, REQUEST_DEADLINE_MS } from "./request-deadline";
import { ARCHIVE_BODY_LIMIT } from "../modules/archives/limits";
import { createArchiveUploadRoute } from "./archive-upload-route";
import { createAudioUploadRoute } from "./audio-upload-route";
import { createDocumentUploadRoute } from "./document-upload-route";
import { DOCUMENT_MAX_MB_DEFAULT } from "../modules/documents/document-kinds";
import { AUDIO_BODY_LIMIT } from "../modules/transcripts/create-audio-task";
import { createAskStreamRoute, wantsEventStream } from "./ask-stream-route";
import { createEventStreamRoute } from "./event-stream-route";
import { createFileRoutes } from "./file-routes";
import { createShareRoutes } from "./share-routes";
import { MAX_FILE_BYTES } from "../modules/files/blob-store";
import { createRestHandler } from "./rest-adapter";
import { createTrpcHandler } from "./trpc-endpoint";
import { viewerRoutes } from "../viewer/route";
import { extensionDownloadRoutes } from "./extension-downloads";
import { createMcpRoute, MCP_PATH } from "../mcp/route";
import { oauthRoutes } from "../oauth/route";
import { clientMetadataFetcher } from "../oauth/clients";
import type { ResolveOverrides } from "../modules/imports/resolve-overrides";
import { PendingUploads, UPLOADS_PENDING_DEFAULT_MB } from "../modules/imports/pending-uploads";

// Every answer of ours says what it is; a browser must not guess otherwise.
const NOSNIFF = { "x-content-type-options": "nosniff" };

export interface HttpAppOptions {
  router: AnyRouter;
  services: ServiceContext;
  document: OpenAPIObject;
  /** Resolves when the notes database and the queue answer; rejects otherwise. */
  checkHealth: () => Promise<void>;
  /** How long a JSON request may take before it is answered with a 500; the contract's 30 s unless a test says otherwise. */
  requestDeadlineMs?: number;
  /** This process's fan-out of changes to its open event streams. */
  events: ChangeFeed;
  /** Where uploaded archives wait for their task (DATA_DIR/archives); without it, archive uploads answer 503. */
  archivesDir?: string;
  /** Where uploaded recordings wait for their transcription (DATA_DIR/media); without it (no STT_BASE_URL), recording uploads answer 503. */
  mediaDir?: string;
  /** UPLOADS_PENDING_MAX_MB in bytes: what a user's uploads waiting for their tasks may hold; the default's when absent. */
  pendingUploadsMaxBytes?: number;
  /** DOCUMENT_MAX_MB in bytes: the largest document upload; the default's when absent. Documents wait in `archivesDir`. */
  documentMaxBytes?: number;
  /** The service's external URL (PUBLIC_URL, else the address it listens on, known once it does); none: only `mcpAllowedOrigins` may call /mcp from a browser. */
  publicUrl?: () => string;
  /** Browser origins allowed at /mcp besides the service's own (MCP_ALLOWED_ORIGINS). */
  mcpAllowedOrigins?: string[];
  /** The import address rules, which also govern fetching connectors' client metadata documents; default: public addresses only. */
  importRules?: { allowPrivateNetworks: boolean; resolveOverrides?: ResolveOverrides };
  /** Where the browser extension's ZIPs are (default: the repository's dist/). */
  extensionDir?: string;
}

// Past every route's own limit, so a body over it gets our 413 (with the error body), not the server's.
const SERVER_BODY_SLACK = 1024 * 1024;

/** The HTTP edge: REST at /api, tRPC at /trpc, the event stream, docs, the /graph page, health; every error in the contract's body. */
export function createHttpApp(options: HttpAppOptions) {
  let server: { requestIP(request: Request): { address: string } | null; timeout(request: Request, seconds: number): void } | null = null;
  const contextFor = (request: Request, transport: TrpcContext["transport"]): TrpcContext => ({
    ...options.services,
    // Only a login throttles by address; Bun's lookup slows every request that makes it.
    clientAddress: () => server?.requestIP(request)?.address ?? "unknown",
    userAgent: () => request.headers.get("user-agent"),
    authorization: request.headers.get("authorization"),
    transport,
  });
  const rest = createRestHandler(options.router, contextFor);
  const trpc = createTrpcHandler(options.router, (request) => contextFor(request, "rpc"));
  const deadlineMs = options.requestDeadlineMs ?? REQUEST_DEADLINE_MS;
  // The uploads (archives, recordings, documents) go past the procedures' limits; every other route keeps its own.
  const documentMaxBytes = options.documentMaxBytes ?? DOCUMENT_MAX_MB_DEFAULT * 1024 * 1024;
  const largestBody = Math.max(DEFAULT_BODY_LIMIT, ARCHIVE_BODY_LIMIT, AUDIO_BODY_LIMIT, MAX_FILE_BYTES, documentMaxBytes, ...bodyLimits(options.router).values());
  const pendingUploads = new PendingUploads(options.services.db, options.pendingUploadsMaxBytes ?? UPLOADS_PENDING_DEFAULT_MB * 1024 * 1024);
  const archiveUpload = createArchiveUploadRoute({ ...options.services, archivesDir: options.archivesDir, pendingUploads });
  const audioUpload = createAudioUploadRoute({ ...options.services, mediaDir: options.mediaDir, pendingUploads });
  const documentUpload = createDocumentUploadRoute({ ...options.services, uploadsDir: options.archivesDir, pendingUploads, maxBytes: documentMaxBytes });
  const fileRoutes = createFileRoutes(options.services);
  const shareRoutes = createShareRoutes(options.services);
  const askStream = createAskStreamRoute({ services: options.services, keepOpen: (request) => server?.timeout(request, 0) });
  const mcp = createMcpRoute({
    router: options.router,
    db: options.services.db,
    contextFor: (request) => contextFor(request, "mcp"),
    publicUrl: options.publicUrl ?? (() => ""),
    allowedOrigins: options.mcpAllowedOrigins ?? [],
  });
  const oauth = oauthRoutes({
    services: options.services,
    publicUrl: options.publicUrl ?? (() => ""),
    clientAddress: (request) => server?.requestIP(request)?.address ?? "unknown",
    fetchDocument: clientMetadataFetcher(options.importRules ?? { allowPrivateNetworks: false }),
  });
  const events = createEventStreamRoute({ db: options.services.db, feed: options.events, keepOpen: (request) => server?.timeout(request, 0) });

  const app = new Elysia({ serve: { maxRequestBodySize: largestBody + SERVER_BODY_SLACK } })
    .onStart(({ server: started }) => {
      server = started as unknown as typeof server;
    })
    .onError(({ code, error }) => {
      if (code === "NOT_FOUND") return edgeError("NOT_FOUND", "No such endpoint");
      if (code === "PARSE") return edgeError("BAD_REQUEST", "Malformed request body");
      log.error("unhandled error at the HTTP edge", error);
      return edgeError("INTERNAL_SERVER_ERROR", "Internal server error");
    })
    .get("/healthz", async () => {
      try {
        await options.checkHealth();
        return Response.json({ status: "ok" }, { headers: NOSNIFF });
      } catch (error) {
        log.warn("health check failed", error);
        return Response.json({ status: "unavailable" }, { status: 503, headers: NOSNIFF });
      }
    })
    .use(docsPlugin(options.document))
    // The event stream stays open as long as the client wants it: no answer deadline.
    .use(viewerRoutes())
    // The browser extension's ZIPs, as `npm run build:extension` left them in dist/.
    .use(extensionDownloadRoutes({ dir: options.extensionDir }))
    // Connectors (claude.ai, ChatGPT): this service as the OAuth authorization server for /mcp.
    .use(oauth)
    // Public share links: HTML, Markdown and images, no credential.
    .all("/s/*", ({ request }) => shareRoutes(request, server?.requestIP(request)?.address ?? "unknown"), { parse: "none" })
    .all(`${REST_PREFIX}/events`, ({ request }) => events(request), { parse: "none" })
    // A raw ZIP of up to 256 MiB streamed to disk: no JSON parsing, and no answer deadline while it uploads.
    .all(`${REST_PREFIX}/tasks/archive`, ({ request }) => archiveUpload(request), { parse: "none" })
    // A recording of up to 256 MiB, streamed to disk the same way.
    .all(`${REST_PREFIX}/tasks/audio`, ({ request }) => audioUpload(request), { parse: "none" })
    // A document (PDF, EPUB, DOCX, text) of up to DOCUMENT_MAX_MB, streamed to disk the same way.
    .all(`${REST_PREFIX}/tasks/document`, ({ request }) => documentUpload(request), { parse: "none" })
    // Raw image bodies (10 MiB, streamed to disk) and raw bytes out: beside the JSON procedures.
    .all(`${REST_PREFIX}/files`, ({ request }) => fileRoutes.upload(request), { parse: "none" })
    .all(`${REST_PREFIX}/files/:id`, ({ request, params }) => fileRoutes.read(request, params.id), { parse: "none" })
    // A streamed question stays open while the answer is written; the JSON one keeps the deadline.
    .all(`${REST_PREFIX}/ask`, ({ request }) => (wantsEventStream(request) ? askStream(request) : answerWithin(deadlineMs, request, () => rest(request))), {
      parse: "none",
    })
    .all(`${REST_PREFIX}/*`, ({ request }) => answerWithin(deadlineMs, request, () => rest(request)), { parse: "none" })
    .all("/trpc/*", ({ request }) => answerWithin(deadlineMs, request, () => trpc(request)), { parse: "none" })
    // The third face of the same procedures: tools for agents (Model Context Protocol).
    .all(MCP_PATH, ({ request }) => answerWithin(deadlineMs, request, () => mcp(request)), { parse: "none" });
  return app;
}
