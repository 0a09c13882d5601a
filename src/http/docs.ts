import path from "node:path";
import { createRequire } from "node:module";
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import type { OpenAPIObject } from "trpc-to-openapi";

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const ASSETS = { "swagger-ui-bundle.js": "text/javascript", "swagger-ui.css": "text/css" } as const;

/**
 * GET /openapi.json (the document generated from the routers) and GET /docs (Swagger UI), through
 * @elysiajs/openapi. Its page loads Swagger UI from a public CDN by default; we serve the files of
 * the swagger-ui-dist package instead, so /docs works with no internet.
 */
export function docsPlugin(document: OpenAPIObject) {
  const assets = new Elysia({ name: "swagger-ui-assets" });
  for (const [file, type] of Object.entries(ASSETS)) {
    const content = Bun.file(path.join(swaggerUiDir, file));
    assets.get(`/docs/assets/${file}`, () => new Response(content, { headers: { "content-type": type, "cache-control": "public, max-age=86400" } }));
  }
  return new Elysia({ name: "docs" }).use(assets).use(
    openapi({
      path: "/docs",
      specPath: "/openapi.json",
      provider: "swagger-ui",
      openapiVersion: document.openapi as `3.1.${number}`,
      // Only the generated document: Elysia's own routes (/api/*, /trpc/*) are not operations.
      exclude: { paths: [/.*/], staticFile: true },
      documentation: document as never,
      swagger: {
        cdn: "/docs/assets/swagger-ui-bundle.js",
        theme: "/docs/assets/swagger-ui.css",
        autoDarkMode: false,
        persistAuthorization: true,
      },
    }),
  );
}
