import { Elysia } from "elysia";
import { bundleViewer, type ViewerAsset, type ViewerBundle } from "./bundle";

/**
 * What the page may do: its own scripts, styles and layout worker, and calls to this origin only.
 * No inline script or style, no plugins, no framing; `data:`/`blob:` images for canvas snapshots.
 */
export const VIEWER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: blob:",
  "worker-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const HEADERS = {
  "content-security-policy": VIEWER_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  // The bundle is rebuilt per process; revalidating with its ETag costs one small request.
  "cache-control": "no-cache",
  vary: "accept-encoding",
};

/**
 * GET / (the notes app), GET /graph, /feeds, /trash and /settings (the same page, opened on that view), and
 * GET /graph/assets/<file> (its script, layout worker and styles), bundled on the first request and
 * kept in memory. No auth: the page logs in, and its data calls carry the token.
 */
export function viewerRoutes() {
  let bundle: Promise<ViewerBundle> | undefined;
  const load = () => {
    bundle ??= bundleViewer().catch((error: unknown) => {
      bundle = undefined; // a failed build is retried by the next request, not kept
      throw error;
    });
    return bundle;
  };
  return new Elysia({ name: "viewer" })
    .get("/", async ({ request }) => respond((await load()).page, request))
    .get("/graph", async ({ request }) => respond((await load()).page, request))
    .get("/feeds", async ({ request }) => respond((await load()).page, request))
    .get("/trash", async ({ request }) => respond((await load()).page, request))
    .get("/settings", async ({ request }) => respond((await load()).page, request))
    .get("/save", async ({ request }) => respond((await load()).page, request))
    .get("/sw.js", async ({ request }) => respond((await load()).serviceWorker, request))
    .get("/manifest.webmanifest", async ({ request }) => respond((await load()).manifest, request))
    .get("/icons/:file", async ({ request, params }) => {
      const icon = (await load()).icons.get(params.file);
      if (!icon) return Response.json({ code: "NOT_FOUND", message: `No such file: /icons/${params.file}` }, { status: 404 });
      return respond(icon, request);
    })
    // The share target without its service worker (a first visit): back to the app. The worker
    // takes shares itself once installed; what reaches here was never kept, so nothing is lost.
    .post("/share", () => new Response(null, { status: 303, headers: { location: "/", "cache-control": "no-store" } }), { parse: "none" })
    .get("/graph/assets/:file", async ({ request, params }) => {
      const asset = (await load()).assets.get(params.file);
      if (!asset) return Response.json({ code: "NOT_FOUND", message: `No such file: /graph/assets/${params.file}` }, { status: 404 });
      return respond(asset, request);
    });
}

function respond(asset: ViewerAsset, request: Request): Response {
  const headers: Record<string, string> = { ...HEADERS, "content-type": asset.type, etag: asset.etag };
  if (request.headers.get("if-none-match") === asset.etag) return new Response(null, { status: 304, headers });
  if (/\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) {
    return new Response(asset.gzip, { headers: { ...headers, "content-encoding": "gzip" } });
  }
  return new Response(asset.body, { headers });
}

/** The page's routes in the OpenAPI document (plain HTTP routes, written by hand as the contract asks). */
export const viewerOpenApiPaths = {
  "/": {
    get: {
      operationId: "app-page",
      summary: "The notes app: write, tag, search, import and export notes, and explore the graph",
      description:
        "An HTML page, served without auth, where a user logs in and keeps their notes: the Notes list, the editor, All tags, Search notes, Import and Imports, Export, Ask, and the graph as one of its views (the same page as /graph). Its script and styles come from /graph/assets/ on this server; it calls only this API and keeps the token in sessionStorage.",
      tags: ["viewer"],
      security: [],
      responses: { "200": { description: "The page", content: { "text/html": { schema: { type: "string" } } } } },
    },
  },
  "/graph": {
    get: {
      operationId: "viewer-page",
      summary: "The knowledge-graph viewer page (the app, opened on its graph view)",
      description:
        "An HTML page, served without auth, where a user logs in and explores their own graph. Its script and styles come from /graph/assets/ on this server; it calls only this API and keeps the token in sessionStorage.",
      tags: ["viewer"],
      security: [],
      responses: { "200": { description: "The page", content: { "text/html": { schema: { type: "string" } } } } },
    },
  },
  "/feeds": {
    get: {
      operationId: "feeds-page",
      summary: "The app, opened on its Feeds view (Feed address and Subscribe, the followed feeds with Refresh and Unsubscribe, Import OPML, Export OPML)",
      tags: ["viewer"],
      security: [],
      responses: { "200": { description: "The page", content: { "text/html": { schema: { type: "string" } } } } },
    },
  },
  "/trash": {
    get: {
      operationId: "trash-page",
      summary: "The app, opened on its Trash view (deleted notes: Restore, Delete forever, Empty trash)",
      tags: ["viewer"],
      security: [],
      responses: { "200": { description: "The page", content: { "text/html": { schema: { type: "string" } } } } },
    },
  },
  "/settings": {
    get: {
      operationId: "settings-page",
      summary: "The app, opened on its Settings view (account, two-factor, sessions, access tokens, connected apps, webhooks, search by meaning)",
      tags: ["viewer"],
      security: [],
      responses: { "200": { description: "The page", content: { "text/html": { schema: { type: "string" } } } } },
    },
  },
  "/save": {
    get: {
      operationId: "save-page",
      summary: "The bookmarklet's page: imports `url` (or `text`) with the login kept on this device and shows the task's status",
      tags: ["viewer"],
      security: [],
      parameters: [
        { name: "url", in: "query", required: false, schema: { type: "string" } },
        { name: "title", in: "query", required: false, schema: { type: "string" } },
        { name: "text", in: "query", required: false, schema: { type: "string" } },
      ],
      responses: { "200": { description: "The page", content: { "text/html": { schema: { type: "string" } } } } },
    },
  },
  "/manifest.webmanifest": {
    get: {
      operationId: "web-app-manifest",
      summary: "The Web App Manifest: name, icons, display and the share target (POST /share)",
      tags: ["viewer"],
      security: [],
      responses: { "200": { description: "The manifest", content: { "application/manifest+json": { schema: { type: "object" } } } } },
    },
  },
  "/sw.js": {
    get: {
      operationId: "service-worker",
      summary: "The app's service worker: the shell precached by revision, shares kept in the outbox",
      tags: ["viewer"],
      security: [],
      responses: { "200": { description: "The script", content: { "text/javascript": { schema: { type: "string" } } } } },
    },
  },
  "/icons/{file}": {
    get: {
      operationId: "app-icon",
      summary: "An icon of the installed app (PNG)",
      tags: ["viewer"],
      security: [],
      parameters: [{ name: "file", in: "path", required: true, schema: { type: "string", enum: ["icon-192.png", "icon-512.png", "icon-maskable-512.png"] } }],
      responses: { "200": { description: "The icon", content: { "image/png": { schema: { type: "string", format: "binary" } } } }, "404": { $ref: "#/components/responses/Error404" } },
    },
  },
  "/share": {
    post: {
      operationId: "share-target",
      summary: "The share target; the service worker takes it. Reaching the server (no worker yet), it is a 303 to the app",
      tags: ["viewer"],
      security: [],
      requestBody: { content: { "multipart/form-data": { schema: { type: "object", properties: { title: { type: "string" }, text: { type: "string" }, url: { type: "string" }, files: { type: "array", items: { type: "string", format: "binary" } } } } } } },
      responses: { "303": { description: "To the app at /" } },
    },
  },
  "/graph/assets/{file}": {
    get: {
      operationId: "viewer-asset",
      summary: "A script, worker or stylesheet of the viewer page",
      tags: ["viewer"],
      security: [],
      parameters: [{ name: "file", in: "path", required: true, schema: { type: "string", enum: ["viewer.js", "layout-worker.js", "viewer.css"] } }],
      responses: {
        "200": { description: "The file", content: { "text/javascript": { schema: { type: "string" } }, "text/css": { schema: { type: "string" } } } },
        "304": { description: "Not modified (If-None-Match matched the ETag)" },
        "404": { $ref: "#/components/responses/Error404" },
      },
    },
  },
};
