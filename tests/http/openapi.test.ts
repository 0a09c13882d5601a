import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { buildOpenApiDocument } from "../../src/http/openapi-document";
import { appRouter } from "../../src/trpc/root";
import { startTestServer, type TestServer } from "../support/server";

const committedFile = path.resolve(import.meta.dir, "../../openapi/openapi.json");
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

describe("the OpenAPI document", () => {
  test("the committed openapi/openapi.json is what the routers generate (run `bun run generate:openapi`)", () => {
    const generated = JSON.stringify(buildOpenApiDocument(appRouter), null, 2) + "\n";
    expect(fs.readFileSync(committedFile, "utf8")).toBe(generated);
  });

  test("GET /openapi.json serves the same document", async () => {
    const served = await (await fetch(`${server.url}/openapi.json`)).json();
    expect(served).toEqual(JSON.parse(fs.readFileSync(committedFile, "utf8")));
  });

  test("documents the login form, the OAuth2 password flow and the ZIP download", () => {
    const document = buildOpenApiDocument(appRouter) as any;
    const login = document.paths["/auth/login"].post;
    expect(Object.keys(login.requestBody.content)).toEqual(["application/x-www-form-urlencoded"]);
    expect(login.requestBody.content["application/x-www-form-urlencoded"].schema.required).toEqual(["username", "password"]);
    expect(document.components.securitySchemes.OAuth2PasswordBearer.flows.password.tokenUrl).toBe("/api/auth/login");
    const exported = document.paths["/notes/export"].post.responses["200"];
    expect(exported.content["application/zip"].schema).toEqual({ type: "string", format: "binary" });
    expect(document.paths["/notes"].post.responses["201"]).toBeDefined();
    expect(document.paths["/notes/{id}"].delete.responses["204"]).toEqual({ description: "No content" });
    expect(document.paths["/auth/me"].get.security).toEqual([{ OAuth2PasswordBearer: [] }]);
    expect(document.paths["/auth/register"].post.security).toBeUndefined();
  });
});

describe("GET /docs", () => {
  test("serves Swagger UI whose script and styles come from this server, not a CDN", async () => {
    const html = await (await fetch(`${server.url}/docs`)).text();
    expect(html).toContain('src="/docs/assets/swagger-ui-bundle.js"');
    expect(html).toContain('href="/docs/assets/swagger-ui.css"');
    expect(html).not.toMatch(/https?:\/\//);
    for (const asset of ["swagger-ui-bundle.js", "swagger-ui.css"]) {
      const response = await fetch(`${server.url}/docs/assets/${asset}`);
      expect(response.status).toBe(200);
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
    }
  });
});
