import fs from "node:fs/promises";
import path from "node:path";

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
}

const here = import.meta.dir;
/** Browser entry points: the page's script and the layout worker it starts. */
const ENTRIES = { "viewer.js": "client/main.ts", "layout-worker.js": "client/layout-worker.ts" } as const;

/** Bundles the page's scripts with Bun.build (minified, every library inlined) and reads its HTML and CSS. */
export async function bundleViewer(): Promise<ViewerBundle> {
  const result = await Bun.build({
    entrypoints: Object.values(ENTRIES).map((entry) => path.join(here, entry)),
    target: "browser",
    format: "esm",
    minify: true,
    splitting: false,
    define: { "process.env.NODE_ENV": '"production"' },
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
  return { page, assets };
}

function asset(type: string, content: Uint8Array): ViewerAsset {
  const body = new Uint8Array(content);
  return { type, body, gzip: new Uint8Array(Bun.gzipSync(body)), etag: `"${Bun.hash(body).toString(36)}"` };
}
