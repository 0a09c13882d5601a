import fs from "node:fs/promises";
import path from "node:path";
import { drawIcons } from "./icons";
import { webAppManifest } from "./web-app-manifest";

export interface ViewerAsset {
  type: string;
  body: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer>;
  etag: string;
}

export interface ViewerBundle {
  /** The HTML of GET /graph. */
  page: ViewerAsset;
  /** By file name under /graph/assets/. */
  assets: Map<string, ViewerAsset>;
  /** GET /sw.js: the service worker, carrying the revisions of everything above. */
  serviceWorker: ViewerAsset;
  /** GET /manifest.webmanifest. */
  manifest: ViewerAsset;
  /** By file name under /icons/. */
  icons: Map<string, ViewerAsset>;
}

/** The app's own paths: each serves the page, opened on one of its views (client/app/views.ts). */
export const APP_PATHS = ["/", "/graph", "/feeds", "/trash", "/settings", "/save"];

const here = import.meta.dir;
/** Browser entry points: the page's script and the layout worker it starts. */
const ENTRIES = { "viewer.js": "client/main.ts", "layout-worker.js": "client/layout-worker.ts" } as const;

/** Bundles the page's scripts with Bun.build (minified, every library inlined) and reads its HTML and CSS. */
export async function bundleViewer(): Promise<ViewerBundle> {
  const result = await Bun.build({
    entrypoints: Object.values(ENTRIES).map((entry) => path.join(here, entry)),
    ...BUILD_OPTIONS,
  });
  if (!result.success) throw new AggregateError(result.logs, "the graph viewer's script did not build");
  const assets = new Map<string, ViewerAsset>();
  for (const [name, entry] of Object.entries(ENTRIES)) {
    const stem = path.basename(entry, ".ts");
    const output = result.outputs.find((file) => file.kind === "entry-point" && path.basename(file.path, ".js") === stem);
    if (!output) throw new Error(`the graph viewer's build has no output for ${entry}`);
    assets.set(name, asset("text/javascript; charset=utf-8", new Uint8Array(await output.arrayBuffer())));
  }
  assets.set("viewer.css", asset("text/css; charset=utf-8", await fs.readFile(path.join(here, "viewer.css"))));
  const page = asset("text/html; charset=utf-8", await fs.readFile(path.join(here, "index.html")));
  const drawn = drawIcons();
  const icons = new Map(drawn.map((icon) => [icon.name, asset("image/png", icon.png)]));
  const manifest = asset("application/manifest+json", new TextEncoder().encode(JSON.stringify(webAppManifest(drawn), null, 2)));
  // The worker's precache names every file of the shell with its ETag: a new bundle is a new worker.
  const precache = [
    { url: "/", revision: page.etag },
    ...[...assets].map(([name, file]) => ({ url: `/graph/assets/${name}`, revision: file.etag })),
    { url: "/manifest.webmanifest", revision: manifest.etag },
    ...[...icons].map(([name, file]) => ({ url: `/icons/${name}`, revision: file.etag })),
  ];
  const worker = await Bun.build({
    entrypoints: [path.join(here, "client/sw/service-worker.ts")],
    ...BUILD_OPTIONS,
    format: "iife", // a classic worker script: every browser registers it without `type: "module"`
    define: { ...BUILD_OPTIONS.define, __PRECACHE__: JSON.stringify(precache), __APP_PATHS__: JSON.stringify(APP_PATHS) },
  });
  if (!worker.success || !worker.outputs[0]) throw new AggregateError(worker.logs, "the service worker did not build");
  const serviceWorker = asset("text/javascript; charset=utf-8", new Uint8Array(await worker.outputs[0].arrayBuffer()));
  return { page, assets, serviceWorker, manifest, icons };
}

const BUILD_OPTIONS = {
  target: "browser",
  format: "esm",
  minify: true,
  splitting: false,
  define: { "process.env.NODE_ENV": '"production"' },
} as const;

function asset(type: string, content: Uint8Array): ViewerAsset {
  const body = new Uint8Array(content);
  return { type, body, gzip: new Uint8Array(Bun.gzipSync(body)), etag: `"${Bun.hash(body).toString(36)}"` };
}
