import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildOpenApiDocument } from "../../src/http/openapi-document";
import { appRouter } from "../../src/trpc/root";
import { serverForThisFile } from "../support/server";

const root = path.resolve(import.meta.dir, "../..");
const committedFile = path.join(root, "openapi/openapi.json");
const METHODS = ["get", "post", "put", "patch", "delete"] as const;
const { server } = await serverForThisFile();

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
    const login = document.paths["/api/auth/login"].post;
    expect(Object.keys(login.requestBody.content)).toEqual(["application/x-www-form-urlencoded"]);
    expect(login.requestBody.content["application/x-www-form-urlencoded"].schema.required).toEqual(["username", "password"]);
    expect(document.components.securitySchemes.OAuth2PasswordBearer.flows.password.tokenUrl).toBe("/api/auth/login");
    const exported = document.paths["/api/notes/export"].post.responses["200"];
    expect(exported.content["application/zip"].schema).toEqual({ type: "string", format: "binary" });
    expect(document.paths["/api/notes"].post.responses["201"]).toBeDefined();
    expect(document.paths["/api/notes/{id}"].delete.responses["204"]).toEqual({ description: "No content" });
  });

  test("writes every path in full, as users read them, from the origin's root", () => {
    const document = buildOpenApiDocument(appRouter) as any;
    expect(document.servers).toEqual([{ url: "/" }]);
    expect(Object.keys(document.paths)).toContain("/api/notes");
    for (const route of Object.keys(document.paths)) expect(route).toMatch(/^\/$|^\/api\/|^\/healthz$|^\/mcp$|^\/graph(\/|$)|^\/oauth\/|^\/\.well-known\/oauth-|^\/s\/\{token\}|^\/(feeds|trash|settings|save|share|sw\.js|manifest\.webmanifest)$|^\/icons\/\{file\}$|^\/extension\/rhizome-extension-(chromium|firefox)\.zip$/);
  });

  test("says which operations need a token: `security: []` on the public ones, the bearer scheme on the rest", () => {
    const document = buildOpenApiDocument(appRouter) as any;
    const publicOperations: string[] = [];
    for (const [route, item] of Object.entries<any>(document.paths)) {
      for (const method of METHODS) {
        if (!item[method]) continue;
        const { security } = item[method];
        expect(Array.isArray(security)).toBe(true);
        if (security.length === 0) publicOperations.push(`${method.toUpperCase()} ${route}`);
        // A login session may call every protected operation; an access token only those its scope allows.
        // /mcp is the exception: agents' access tokens only.
        else if (route === "/mcp") expect(security).toEqual([{ AccessToken: [] }]);
        else expect(security[0]).toEqual({ OAuth2PasswordBearer: [] });
      }
    }
    expect(publicOperations.sort()).toEqual(
      [
        "GET /",
        "GET /feeds",
        "GET /graph",
        "GET /graph/assets/{file}",
        "GET /healthz",
        "POST /api/auth/login",
        "POST /api/auth/register",
        "GET /api/auth/registration",
        "GET /.well-known/oauth-protected-resource/mcp",
        "GET /.well-known/oauth-protected-resource/api",
        "GET /.well-known/oauth-protected-resource",
        "GET /.well-known/oauth-authorization-server",
        "POST /oauth/register",
        "GET /oauth/authorize",
        "POST /oauth/authorize",
        "POST /oauth/token",
        "POST /oauth/revoke",
        "GET /s/{token}",
        "GET /s/{token}/files/{file_id}",
        "GET /trash",
        "GET /settings",
        "GET /save",
        "GET /sw.js",
        "GET /manifest.webmanifest",
        "GET /icons/{file}",
        "POST /share",
        "GET /extension/rhizome-extension-chromium.zip",
        "GET /extension/rhizome-extension-firefox.zip",
      ].sort(),
    );
  });

  test("lists each operation's scope as the access token's security requirement", () => {
    const document = buildOpenApiDocument(appRouter) as any;
    const scopeOf = (path: string, method: string) => document.paths[path][method].security.find((requirement: object) => "AccessToken" in requirement)?.AccessToken;
    expect(scopeOf("/api/notes", "get")).toEqual(["notes:read"]);
    expect(scopeOf("/api/notes/{id}", "delete")).toEqual(["notes:write"]);
    expect(scopeOf("/api/tasks/archive", "post")).toEqual(["imports"]);
    expect(scopeOf("/api/files", "post")).toEqual(["notes:write"]);
    expect(scopeOf("/api/knowledge-graph/build", "post")).toEqual(["graph:write"]);
    expect(scopeOf("/api/ask", "post")).toEqual(["ask"]);
    // Any token: who am I, and the event stream.
    expect(scopeOf("/api/auth/me", "get")).toEqual([]);
    expect(scopeOf("/api/events", "get")).toEqual([]);
    // Login sessions only: no access-token requirement at all.
    const sessionOnly: [string, string][] = [["/api/auth/tokens", "post"], ["/api/auth/tokens", "get"], ["/api/auth/logout", "post"], ["/api/auth/totp/setup", "post"]];
    for (const [path, method] of sessionOnly) {
      expect(document.paths[path][method].security).toEqual([{ OAuth2PasswordBearer: [] }]);
    }
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(["AccessToken", "OAuth2PasswordBearer"]);
  });

  test("operations that can answer 409 say so: a stale save, a 21st webhook, a 101st share link, a test event for a webhook turned off", () => {
    const document = buildOpenApiDocument(appRouter) as any;
    for (const [path, method] of [["/api/notes/{id}", "put"], ["/api/webhooks", "post"], ["/api/notes/{id}/shares", "post"], ["/api/webhooks/{id}/test", "post"]] as const) {
      expect(document.paths[path][method].responses["409"]).toBeDefined();
    }
    expect(document.paths["/api/webhooks/{id}"].patch.responses["409"]).toBeUndefined();
  });

  test("a larger body limit is documented on its operation", () => {
    const document = buildOpenApiDocument(appRouter) as any;
    expect(document.paths["/api/tasks"].post.responses["413"].description).toContain("12 MiB");
    expect(document.paths["/api/notes"].post.responses["413"]).toEqual({ $ref: "#/components/responses/Error413" });
  });

  test("passes `redocly lint` with no errors", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-openapi-"));
    const file = path.join(dir, "openapi.json");
    fs.writeFileSync(file, JSON.stringify(buildOpenApiDocument(appRouter)));
    try {
      const lint = Bun.spawn([path.join(root, "node_modules/.bin/redocly"), "lint", file, "--format=json"], {
        cwd: dir,
        // Offline and quiet: no telemetry, no update check, no notices.
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", REDOCLY_SUPPRESS_NOTIFICATIONS: "true", CI: "true" },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [output, errors] = await Promise.all([new Response(lint.stdout).text(), new Response(lint.stderr).text(), lint.exited]);
      const report = JSON.parse(output) as { totals: { errors: number }; problems: { ruleId: string; severity: string; message: string }[] };
      const problems = report.problems.filter((problem) => problem.severity === "error").map((problem) => `${problem.ruleId}: ${problem.message}`);
      expect({ problems, exitCode: lint.exitCode, errors: lint.exitCode === 0 ? "" : errors }).toEqual({ problems: [], exitCode: 0, errors: "" });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("the document's operations, called as Swagger UI's \"Try it out\" calls them", () => {
  test("every operation's URL reaches its route; operations with a security requirement want a token, public ones do not", async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as any;
    // swagger-client: the server URL resolved against the document's URL, without a trailing slash, then the path.
    const base = new URL(document.servers[0].url, `${server.url}/openapi.json`).href.replace(/\/$/, "");
    for (const [route, item] of Object.entries<any>(document.paths)) {
      for (const method of METHODS) {
        if (!item[method]) continue;
        const url = base + route.replace(/\{\w+\}/g, "1");
        const response = await fetch(url, { method: method.toUpperCase() });
        const body = await response.text();
        const name = `${method.toUpperCase()} ${route}`;
        expect({ name, reached: !body.includes("No such endpoint") }).toEqual({ name, reached: true });
        const wantsToken = item[method].security.length > 0;
        expect({ name, status: wantsToken ? response.status : response.status === 401 ? 401 : "not 401" }).toEqual({ name, status: wantsToken ? 401 : "not 401" });
      }
    }
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
