import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import type { AnyRouter } from "@trpc/server";
import { proceduresWithMeta } from "./procedure-meta";
import { viewerOpenApiPaths } from "../viewer/route";

const ERROR_STATUSES: Record<number, string> = {
  400: "Invalid input (body, query or path); `issues` lists each problem",
  401: "Missing, invalid or expired bearer token",
  404: "No such resource (or it belongs to another user)",
  405: "Method not allowed on this path",
  409: "Conflict with the current state",
  413: "Request body over the limit",
  415: "Unsupported content type",
  429: "Too many attempts; see Retry-After",
  500: "Unexpected error (no details are returned)",
  503: "A backing service is unavailable; retry later",
};

/**
 * The committed openapi/openapi.json: trpc-to-openapi's document from the procedures' meta, with
 * what it cannot express added here — real success statuses, the ZIP download, the contract's
 * single error body, and the OAuth2 password flow that Swagger UI's Authorize button uses.
 */
export function buildOpenApiDocument(router: AnyRouter): OpenAPIObject {
  const document = generateOpenApiDocument(router, {
    title: "Rhizome API",
    version: "1.0.0",
    description:
      "Notes, imports and a knowledge graph. Every operation is also available over tRPC at /trpc. Errors share one body: `{code, message, issues?}`.",
    baseUrl: "/api",
    securitySchemes: {
      OAuth2PasswordBearer: {
        type: "oauth2",
        description: "Log in with username and password; the token is sent as `Authorization: Bearer <token>`.",
        flows: { password: { tokenUrl: "/api/auth/login", scopes: {} } },
      },
    },
  });
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, Error: errorSchema as never },
    responses: Object.fromEntries(Object.entries(ERROR_STATUSES).map(([status, description]) => [`Error${status}`, errorResponse(description)])),
  };
  for (const { meta } of proceduresWithMeta(router)) {
    const openapi = meta.openapi!;
    const operation = document.paths?.[openapi.path.replace(/^\//, "/")]?.[openapi.method.toLowerCase() as "get"];
    if (!operation?.responses) continue;
    const success = operation.responses["200"];
    delete operation.responses["200"];
    const status = String(meta.successStatus ?? 200);
    if (meta.download) {
      operation.responses[status] = {
        description: `The download (${meta.download})`,
        content: { [meta.download]: { schema: { type: "string", format: "binary" } } },
        headers: { "Content-Disposition": { schema: { type: "string" }, description: 'attachment; filename="notes-YYYYMMDD.zip"' } },
      };
    } else if (status === "204") {
      operation.responses[status] = { description: "No content" };
    } else {
      operation.responses[status] = { ...success, description: status === "201" ? "Created" : status === "202" ? "Accepted" : "OK" };
    }
    for (const code of Object.keys(operation.responses)) if (Number(code) >= 400) delete operation.responses[code];
    for (const code of errorStatusesFor(openapi.method, Boolean(operation.security), openapi.path)) {
      operation.responses[String(code)] = { $ref: `#/components/responses/Error${code}` };
    }
  }
  document.paths = { ...document.paths, ...(viewerOpenApiPaths as OpenAPIObject["paths"]) };
  return document;
}

// Operations whose success depends on current state, and so can answer 409.
const CONFLICT_PATHS = new Set(["/auth/register", "/auth/totp/setup", "/auth/totp/enable", "/auth/totp/disable", "/knowledge-graph/build"]);

function errorStatusesFor(method: string, isProtected: boolean, path: string): number[] {
  const statuses = [400];
  if (isProtected || path === "/auth/login") statuses.push(401);
  if (path.includes("{")) statuses.push(404);
  if (CONFLICT_PATHS.has(path)) statuses.push(409);
  if (method !== "GET" && method !== "DELETE") statuses.push(413, 415);
  if (path === "/auth/login" || path.startsWith("/auth/totp")) statuses.push(429);
  statuses.push(500, 503);
  return [...new Set(statuses)].sort();
}

const errorSchema = {
  type: "object",
  required: ["code", "message"],
  properties: {
    code: { type: "string", description: "tRPC error code name", example: "BAD_REQUEST" },
    message: { type: "string", example: "Input validation failed" },
    issues: {
      type: "array",
      description: "Only for validation errors",
      items: {
        type: "object",
        required: ["path", "message"],
        properties: { path: { type: "array", items: { type: ["string", "number"] } }, message: { type: "string" } },
      },
    },
  },
};

function errorResponse(description: string) {
  return { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
}
