import { expect, test } from "bun:test";
import type { AnyProcedure, AnyRouter } from "@trpc/server";
import { buildOpenApiDocument } from "../../src/http/openapi-document";
import { appRouter } from "../../src/trpc/root";
import { ALL_SCOPES, createAccessToken } from "../support/access-tokens";
import { serverForThisFile } from "../support/server";

// The scope matrix, on two faces. REST: every operation the OpenAPI document lists as taking a
// bearer token (plain routes included). tRPC: every procedure of the router, those without a REST
// form included. Each is called with a token lacking its scope (403 insufficient_scope) and with one
// holding only that scope (anything but 403). Operations for login sessions only refuse a token
// holding every scope. What each procedure should need is written down below from the contract, so
// a procedure opened to the wrong scope (or to any token) fails here, not only one that ignores its own.

/** The contract's access per procedure ("Access tokens"): a scope, "any" token, a login "session", or "public" (no token). */
const CONTRACT_ACCESS: Record<string, string> = {
  "auth.register": "public",
  "auth.registration": "public",
  "auth.login": "public",
  "auth.totpVerify": "public", // the pending token of a TOTP login, checked by the procedure itself
  "auth.me": "any",
  "auth.logout": "session",
  "auth.totpSetup": "session",
  "auth.totpEnable": "session",
  "auth.totpDisable": "session",
  "auth.ticket": "session",
  "accounts.changePassword": "session",
  "accounts.sessions": "session",
  "accounts.endSession": "session",
  "accounts.endOtherSessions": "session",
  "accounts.deleteAccount": "session",
  "tokens.create": "session",
  "tokens.list": "session",
  "tokens.revoke": "session",
  "notes.list": "notes:read",
  "notes.get": "notes:read",
  "notes.export": "notes:read",
  "notes.create": "notes:write",
  "notes.update": "notes:write",
  "notes.delete": "notes:write",
  "files.get": "notes:read",
  "tags.list": "notes:read",
  "history.versions": "notes:read",
  "history.version": "notes:read",
  "history.diff": "notes:read",
  "history.trash": "notes:read",
  "history.restoreVersion": "notes:write",
  "history.restoreFromTrash": "notes:write",
  "history.purge": "notes:write",
  "history.emptyTrash": "notes:write",
  "shares.list": "notes:read",
  "shares.create": "notes:write",
  "shares.revoke": "notes:write",
  "search.status": "notes:read",
  "search.related": "notes:read",
  "search.mergeSuggestions": "graph:read",
  "tasks.create": "imports",
  "tasks.list": "imports",
  "tasks.get": "imports",
  "graph.status": "graph:read",
  "graph.get": "graph:read",
  "graph.node": "graph:read",
  "graph.builds": "graph:read",
  "graph.buildRecord": "graph:read",
  "graph.build": "graph:write",
  "graph.updateNode": "graph:write",
  "graph.mergeNodes": "graph:write",
  "ask.ask": "ask",
  "webhooks.create": "webhooks",
  "webhooks.list": "webhooks",
  "webhooks.get": "webhooks",
  "webhooks.update": "webhooks",
  "webhooks.delete": "webhooks",
  "webhooks.test": "webhooks",
  "webhooks.deliveries": "webhooks",
  "feeds.create": "imports",
  "feeds.list": "imports",
  "feeds.get": "imports",
  "feeds.update": "imports",
  "feeds.delete": "imports",
  "feeds.refresh": "imports",
  "feeds.items": "imports",
  "feeds.importOpml": "imports",
  "feeds.exportOpml": "imports",
};

const procedures = (appRouter as AnyRouter)._def.procedures as Record<string, AnyProcedure>;

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

test("every procedure of the router declares the access the contract gives it (a new one must be added above)", () => {
  expect(Object.keys(procedures).sort()).toEqual(Object.keys(CONTRACT_ACCESS).sort());
  const declared = Object.fromEntries(Object.entries(procedures).map(([path, procedure]) => [path, (procedure._def.meta as { access?: string } | undefined)?.access ?? "public"]));
  expect(declared).toEqual(CONTRACT_ACCESS);
});

/** Calls a procedure over /trpc as a tRPC client does (a query by GET, a mutation by POST); returns status, error code and headers. */
async function callTrpc(token: string | undefined, path: string, input: unknown): Promise<{ status: number; code?: string; message?: string; wwwAuthenticate: string | null }> {
  const query = procedures[path]!._def.type === "query";
  const encoded = encodeURIComponent(JSON.stringify(input));
  const response = await fetch(`${server.url}/trpc/${path}${query ? `?input=${encoded}` : ""}`, {
    method: query ? "GET" : "POST",
    headers: { ...(token && { authorization: `Bearer ${token}` }), ...(!query && { "content-type": "application/json" }) },
    body: query ? undefined : JSON.stringify(input),
  });
  const body = (await response.json().catch(() => undefined)) as { error?: { message?: string; data?: { code?: string } } } | undefined;
  return { status: response.status, code: body?.error?.data?.code, message: body?.error?.message, wwwAuthenticate: response.headers.get("www-authenticate") };
}

test("over /trpc, every procedure refuses a call without a token (401), and a token without its scope (403 naming it); one with only that scope gets through", async () => {
  // A note of its own: the calls with their scope run for real (notes.delete deletes it).
  const rpcNote = (await session.post("/api/notes", { title: "Matrix over tRPC", content: "a note" })).body.id as number;
  const input = { id: rpcNote };
  const everyScope = await createAccessToken(session, ALL_SCOPES);
  // One token per scope and one lacking each (the account holds at most 100).
  const tokens = new Map<string, string>();
  const token = async (key: string, scopes: string[]) => tokens.get(key) ?? tokens.set(key, await createAccessToken(session, scopes)).get(key)!;
  const failures: string[] = [];
  const allowedStatus = new Map<string, number>();
  for (const [path, access] of Object.entries(CONTRACT_ACCESS)) {
    if (access === "public") continue;
    const anonymous = await callTrpc(undefined, path, input);
    if (anonymous.status !== 401 || anonymous.code !== "UNAUTHORIZED") failures.push(`${path}: without a token got ${anonymous.status} ${anonymous.code}`);
    if (access === "session") {
      const refused = await callTrpc(everyScope, path, input);
      if (refused.status !== 403 || refused.code !== "FORBIDDEN") failures.push(`${path}: a token with every scope got ${refused.status}, not 403`);
      continue;
    }
    if (access === "any") {
      const allowed = await callTrpc(await token("webhooks", ["webhooks"]), path, input);
      if (allowed.status === 401 || allowed.status === 403) failures.push(`${path}: any token should do, got ${allowed.status}`);
      continue;
    }
    const refused = await callTrpc(await token(`without ${access}`, ALL_SCOPES.filter((other) => other !== access)), path, input);
    if (refused.status !== 403 || refused.message !== `This token lacks the scope ${access}` || !refused.wwwAuthenticate?.includes(`scope="${access}"`)) {
      failures.push(`${path}: without ${access} got ${refused.status} ${refused.message}`);
    }
    const allowed = await callTrpc(await token(access, [access]), path, input);
    allowedStatus.set(path, allowed.status);
    if (allowed.status === 401 || allowed.status === 403 || allowed.status >= 500) failures.push(`${path}: with ${access} got ${allowed.status} ${allowed.message}`);
  }
  expect(failures).toEqual([]);
  // The calls with their scope ran for real: the note was read, then deleted.
  expect(allowedStatus.get("notes.get")).toBe(200);
  expect(allowedStatus.get("notes.delete")).toBe(200);
});
