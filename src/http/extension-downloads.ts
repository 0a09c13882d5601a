import path from "node:path";
import { Elysia } from "elysia";

// GET /extension/rhizome-extension-{chromium,firefox}.zip: the browser extension as built by
// `npm run build:extension` (which `npm start` runs first when a ZIP is missing), read from dist/
// on every request, so a rebuild is served without a restart. No auth: it holds no secret.

export const EXTENSION_FILES = ["rhizome-extension-chromium.zip", "rhizome-extension-firefox.zip"] as const;
const DEFAULT_DIR = path.resolve(import.meta.dir, "../../dist");

const notFound = (message: string) => Response.json({ code: "NOT_FOUND", message }, { status: 404, headers: { "x-content-type-options": "nosniff" } });

export function extensionDownloadRoutes(options: { dir?: string } = {}) {
  const dir = options.dir ?? DEFAULT_DIR;
  return new Elysia({ name: "extension-downloads" }).get("/extension/:file", async ({ params }) => {
    const name = EXTENSION_FILES.find((file) => file === params.file);
    if (!name) return notFound(`No such download: /extension/${params.file.slice(0, 200)}; there are ${EXTENSION_FILES.map((file) => `/extension/${file}`).join(" and ")}`);
    const file = Bun.file(path.join(dir, name));
    if (!(await file.exists())) {
      return notFound(`The browser extension has not been built on this server: run \`npm run build:extension\` (or restart with \`npm start\`, which builds it when it is missing)`);
    }
    return new Response(file, {
      headers: {
        "content-type": "application/zip",
        "content-disposition": `attachment; filename="${name}"`,
        "cache-control": "no-cache",
        "last-modified": new Date(file.lastModified).toUTCString(),
        "x-content-type-options": "nosniff",
      },
    });
  });
}

const download = (browser: string, file: string) => ({
  get: {
    operationId: `extension-${browser.toLowerCase()}`,
    summary: `The browser extension for ${browser} (a ZIP)`,
    description:
      "Built from extension/ by `npm run build:extension` (`npm start` builds it when missing) and read from dist/ when asked for. Served without auth. Load it unpacked, or install it as the browser allows.",
    tags: ["extension"],
    security: [],
    responses: {
      "200": {
        description: "The ZIP",
        headers: { "Content-Disposition": { schema: { type: "string" }, description: `attachment; filename="${file}"` } },
        content: { "application/zip": { schema: { type: "string", format: "binary" } } },
      },
      "404": { $ref: "#/components/responses/Error404" },
    },
  },
});

/** The downloads in the OpenAPI document (plain routes, written by hand). */
export const extensionOpenApiPaths = {
  "/extension/rhizome-extension-chromium.zip": download("Chromium", "rhizome-extension-chromium.zip"),
  "/extension/rhizome-extension-firefox.zip": download("Firefox", "rhizome-extension-firefox.zip"),
};
