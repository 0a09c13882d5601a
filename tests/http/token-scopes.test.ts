import { expect, test } from "bun:test";
import { buildOpenApiDocument } from "../../src/http/openapi-document";
import { appRouter } from "../../src/trpc/root";
import { ALL_SCOPES, createAccessToken } from "../support/access-tokens";
import { serverForThisFile } from "../support/server";

// The scope matrix: every operation the OpenAPI document lists as taking a bearer token is called
// with a token lacking its scope (403 insufficient_scope) and with one holding only that scope
// (anything but 403). Operations for login sessions only refuse a token holding every scope.

const { server, api } = await serverForThisFile();
const { api: session } = await api.newUser("matrix");
const noteId: number = (await session.post("/api/notes", { title: "Matrix", content: "a note" })).body.id;

interface Operation {
  method: string;
  path: string;
  /** The scope an access token needs; "any" for any token; "session" when only a login session may call it. */
  access: string;
}

function protectedOperations(): Operation[] {
  const document = buildOpenApiDocument(appRouter) as any;
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(item)) {
      if (!operation?.security || operation.security.length === 0) continue;
      const token = operation.security.find((requirement: object) => "AccessToken" in requirement)?.AccessToken as string[] | undefined;
      operations.push({ method: method.toUpperCase(), path, access: token === undefined ? "session" : token.length === 0 ? "any" : token[0]! });
    }
  }
  return operations;
}

/** Calls an operation with a harmless input; returns the status (a stream is closed at once). */
async function call(token: string, { method, path }: Operation): Promise<{ status: number; body: any; wwwAuthenticate: string | null }> {
  const url = server.url + path.replace(/\{[^}]+\}/g, String(noteId));
  const hasBody = method !== "GET" && method !== "DELETE";
  const controller = new AbortController();
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(hasBody && { "content-type": "application/json" }) },
    body: hasBody ? "{}" : undefined,
    signal: controller.signal,
  });
  const type = response.headers.get("content-type") ?? "";
  const body = type.includes("application/json") ? await response.json().catch(() => undefined) : undefined;
  controller.abort();
  return { status: response.status, body, wwwAuthenticate: response.headers.get("www-authenticate") };
}

test("the document lists every scope on some operation, and every protected operation's access", () => {
  const operations = protectedOperations();
  expect(operations.length).toBeGreaterThan(25);
  const used = new Set(operations.map((operation) => operation.access));
  for (const scope of ALL_SCOPES.filter((scope) => scope !== "webhooks")) expect(used.has(scope)).toBe(true);
  expect(used.has("session")).toBe(true);
  expect(used.has("any")).toBe(true);
});

test("a token without an operation's scope gets 403 insufficient_scope; one with only that scope does not", async () => {
  const tokensWithout = new Map<string, string>();
  const tokensWith = new Map<string, string>();
  const failures: string[] = [];
  const allowedStatus = new Map<string, number>();
  for (const operation of protectedOperations()) {
    const name = `${operation.method} ${operation.path}`;
    if (operation.access === "session") {
      tokensWith.set("*", tokensWith.get("*") ?? (await createAccessToken(session, ALL_SCOPES)));
      const result = await call(tokensWith.get("*")!, operation);
      if (result.status !== 403 || result.body?.code !== "FORBIDDEN") failures.push(`${name}: a token with every scope got ${result.status}, not 403`);
      continue;
    }
    if (operation.access === "any") {
      const result = await call(await createAccessToken(session, ["webhooks"]), operation);
      if (result.status === 403 || result.status === 401) failures.push(`${name}: any token should do, got ${result.status}`);
      continue;
    }
    const scope = operation.access;
    if (!tokensWithout.has(scope)) tokensWithout.set(scope, await createAccessToken(session, ALL_SCOPES.filter((other) => other !== scope)));
    if (!tokensWith.has(scope)) tokensWith.set(scope, await createAccessToken(session, [scope]));
    const refused = await call(tokensWithout.get(scope)!, operation);
    if (refused.status !== 403 || refused.body?.message !== `This token lacks the scope ${scope}` || !refused.wwwAuthenticate?.includes(`scope="${scope}"`)) {
      failures.push(`${name}: without ${scope} got ${refused.status} ${JSON.stringify(refused.body)}`);
    }
    const allowed = await call(tokensWith.get(scope)!, operation);
    allowedStatus.set(name, allowed.status);
    if (allowed.status === 403 || allowed.status === 401 || allowed.status >= 500) failures.push(`${name}: with ${scope} got ${allowed.status}`);
  }
  expect(failures).toEqual([]);
  // The calls with their scope ran for real: the note was read, then deleted.
  expect(allowedStatus.get("GET /api/notes/{id}")).toBe(200);
  expect(allowedStatus.get("DELETE /api/notes/{id}")).toBe(204);
});
