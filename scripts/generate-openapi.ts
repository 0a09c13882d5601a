// Writes openapi/openapi.json from the routers. Run after changing a procedure; a test fails
// when the committed file and the routers disagree.
import fs from "node:fs";
import path from "node:path";
import { buildOpenApiDocument } from "../src/http/openapi-document";
import { appRouter } from "../src/trpc/root";

const target = path.resolve(import.meta.dir, "../openapi/openapi.json");
fs.mkdirSync(path.dirname(target), { recursive: true });
fs.writeFileSync(target, JSON.stringify(buildOpenApiDocument(appRouter), null, 2) + "\n");
console.log(`wrote ${path.relative(process.cwd(), target)}`);
