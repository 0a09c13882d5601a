// Webhooks end to end: managed through the API, fed by note, task and graph changes, delivered by
// the worker to a receiver on loopback that checks every signature with `standardwebhooks`.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createAccessToken } from "../support/access-tokens";
import { Api, expectError } from "../support/api";
import { serverForThisFile, startTestServer, type TestServer } from "../support/server";
import { until } from "../support/until";
import { webhookJobs } from "../support/webhook-jobs";
import { trpcClient, trpcFailure } from "../support/trpc";
import { startWebhookReceiver } from "../support/webhook-receiver";

const receiver = startWebhookReceiver();
afterAll(() => receiver.stop());
// Loopback stands in for the receiver's public address; retries a fraction of a second apart.
const { server } = await serverForThisFile({ IMPORT_ALLOW_PRIVATE_NETWORKS: "true", WEBHOOK_RETRY_DELAYS: "100ms,100ms,100ms" });
beforeEach(() => {
  receiver.answer = () => 200;
});

let hooks = 0;
/** A webhook of the user's at its own path of the receiver, whose deliveries the receiver verifies. */
async function subscribe(api: Api, events: string[], extra: Record<string, unknown> = {}) {
  const path = `/hook-${++hooks}`;
  const created = await api.post("/api/webhooks", { url: `${receiver.origin}${path}`, events, ...extra });
  expect(created.status).toBe(201);
  receiver.secrets.set(path, created.body.secret);
  return { ...created.body, path } as { id: number; secret: string; path: string; url: string; events: string[] };
}

const at = (path: string) => receiver.received.filter((delivery) => delivery.path === path);
const log = async (api: Api, id: number) => (await api.get(`/api/webhooks/${id}/deliveries?size=100`)).body;

describe("managing webhooks", () => {
  test("create shows the secret once; list, get, patch and delete follow the contract", async () => {
    const { api } = await new Api(server.url).newUser("wh-crud");
    const created = await api.post("/api/webhooks", { url: "https://hooks.example.com/in", events: ["note.created", "note.created", "task.failed"], description: "n8n" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: "https://hooks.example.com/in", events: ["note.created", "task.failed"], description: "n8n", enabled: true, disabled_reason: null });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const id = created.body.id;
    const listed = (await api.get("/api/webhooks")).body.items;
    expect(listed).toHaveLength(1);
    expect(listed[0].secret).toBeUndefined();
    expect(JSON.stringify(listed)).not.toContain(created.body.secret);
    expect((await api.get(`/api/webhooks/${id}`)).body.secret).toBeUndefined();
    const patched = await api.request("PATCH", `/api/webhooks/${id}`, { json: { enabled: false, events: ["graph.build.completed"] } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ enabled: false, events: ["graph.build.completed"], url: "https://hooks.example.com/in", description: "n8n" });
    expect((await api.delete(`/api/webhooks/${id}`)).status).toBe(204);
    expect((await api.get(`/api/webhooks/${id}`)).status).toBe(404);
  });

  test("bad input is a 400 naming the field; more than 20 webhooks is a 409", async () => {
    const { api } = await new Api(server.url).newUser("wh-bad");
    const cases: [Record<string, unknown>, string][] = [
      [{ url: "ftp://x.example/", events: ["note.created"] }, "url"],
      [{ url: "https://user:pw@x.example/", events: ["note.created"] }, "url"],
      [{ url: "not a url", events: ["note.created"] }, "url"],
      [{ url: "https://x.example/", events: [] }, "events"],
      [{ url: "https://x.example/", events: ["note.exploded"] }, "events"],
      [{ url: "https://x.example/", events: ["note.created"], description: "x".repeat(501) }, "description"],
    ];
    for (const [body, field] of cases) {
      const refused = await api.post("/api/webhooks", body);
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe("BAD_REQUEST");
      expect(refused.body.issues[0].path[0]).toBe(field);
    }
    for (let i = 0; i < 20; i++) expect((await api.post("/api/webhooks", { url: `https://x.example/${i}`, events: ["note.created"] })).status).toBe(201);
    const over = await api.post("/api/webhooks", { url: "https://x.example/21", events: ["note.created"] });
    expect(over.status).toBe(409);
    expect(over.body.message).toContain("20");
    const id = (await api.get("/api/webhooks")).body.items[0].id;
    expect((await api.request("PATCH", `/api/webhooks/${id}`, { json: {} })).status).toBe(400);
  });

  test("another user's webhook is a 404 for every operation; an access token needs the webhooks scope", async () => {
    const { api: alice } = await new Api(server.url).newUser("wh-own-a");
    const { api: bob } = await new Api(server.url).newUser("wh-own-b");
    const hook = await subscribe(alice, ["note.created"]);
    expect((await bob.get(`/api/webhooks/${hook.id}`)).status).toBe(404);
    expect((await bob.request("PATCH", `/api/webhooks/${hook.id}`, { json: { enabled: false } })).status).toBe(404);
    expect((await bob.post(`/api/webhooks/${hook.id}/test`)).status).toBe(404);
    expect((await bob.get(`/api/webhooks/${hook.id}/deliveries`)).status).toBe(404);
    expect((await bob.delete(`/api/webhooks/${hook.id}`)).status).toBe(404);
    expect((await bob.get("/api/webhooks")).body.items).toEqual([]);
    const notes = (await alice.post("/api/auth/tokens", { name: "notes", scopes: ["notes:read", "notes:write"] })).body.token;
    expect((await alice.withToken(notes).get("/api/webhooks")).status).toBe(403);
    const scoped = (await alice.post("/api/auth/tokens", { name: "hooks", scopes: ["webhooks"] })).body.token;
    expect((await alice.withToken(scoped).get("/api/webhooks")).status).toBe(200);
  });
});

describe("what a token may subscribe to", () => {
  /** A 403 naming the missing scope, as the contract's "Access tokens" has it. */
  function expectMissingScope(response: Awaited<ReturnType<Api["post"]>>, scope: string) {
    expectError(response, 403, "FORBIDDEN");
    expect(response.body.message).toBe(`This token lacks the scope ${scope}`);
    expect(response.headers.get("www-authenticate")).toContain(`scope="${scope}"`);
  }

  test("each event family needs its read scope beside webhooks (note.* notes:read, task.* imports, graph.* graph:read), on REST and over /trpc; a login session has them all", async () => {
    const { api } = await new Api(server.url).newUser("wh-scope-create");
    const hooksOnly = api.withToken(await createAccessToken(api, ["webhooks"]));
    const url = `${receiver.origin}/never`;
    expectMissingScope(await hooksOnly.post("/api/webhooks", { url, events: ["note.created"] }), "notes:read");
    expectMissingScope(await hooksOnly.post("/api/webhooks", { url, events: ["task.failed"] }), "imports");
    expectMissingScope(await hooksOnly.post("/api/webhooks", { url, events: ["graph.build.completed"] }), "graph:read");
    const rpc = trpcClient(server.url, hooksOnly.token).webhooks.create.mutate({ url, events: ["note.updated"] });
    expect(await trpcFailure(rpc)).toEqual({ code: "FORBIDDEN", status: 403, message: "This token lacks the scope notes:read" });
    const notesReader = api.withToken(await createAccessToken(api, ["webhooks", "notes:read"]));
    expectMissingScope(await notesReader.post("/api/webhooks", { url, events: ["note.created", "task.completed"] }), "imports");
    expect((await hooksOnly.get("/api/webhooks")).body.items).toEqual([]); // nothing was made by the refusals
    // The positive controls: with the family's scope a token may, and a session may subscribe to everything.
    expect((await notesReader.post("/api/webhooks", { url, events: ["note.created", "note.deleted"] })).status).toBe(201);
    const everything = ["note.created", "note.updated", "note.deleted", "task.completed", "task.failed", "graph.build.completed", "graph.build.failed"];
    expect((await api.post("/api/webhooks", { url, events: everything })).status).toBe(201);
  });

  test("any change to a webhook needs the scopes of the events it will carry: a webhooks-only token can neither widen it nor point it elsewhere", async () => {
    const { api } = await new Api(server.url).newUser("wh-scope-patch");
    const hook = await subscribe(api, ["note.created"]);
    const hooksOnly = api.withToken(await createAccessToken(api, ["webhooks"]));
    const patch = (client: Api, json: Record<string, unknown>) => client.request("PATCH", `/api/webhooks/${hook.id}`, { json });
    expectMissingScope(await patch(hooksOnly, { url: "https://elsewhere.example/steal" }), "notes:read");
    expectMissingScope(await patch(hooksOnly, { description: "mine now" }), "notes:read");
    expectMissingScope(await patch(hooksOnly, { events: ["graph.build.completed"] }), "graph:read");
    expect((await api.get(`/api/webhooks/${hook.id}`)).body).toMatchObject({ url: hook.url, events: ["note.created"], description: null });
    const rpc = trpcClient(server.url, hooksOnly.token).webhooks.update.mutate({ id: hook.id, url: "https://elsewhere.example/steal" });
    expect((await trpcFailure(rpc)).code).toBe("FORBIDDEN");
    // It may still read, test and delete what it manages; a token that reads tasks may move the webhook to task events only.
    expect((await hooksOnly.get(`/api/webhooks/${hook.id}`)).status).toBe(200);
    const tasksReader = api.withToken(await createAccessToken(api, ["webhooks", "imports"]));
    expect((await patch(tasksReader, { events: ["task.completed"] })).body).toMatchObject({ events: ["task.completed"] });
    expect((await hooksOnly.delete(`/api/webhooks/${hook.id}`)).status).toBe(204);
  });

  test("a webhook set up by a token stops with that token: revoked, the next event is not sent and the webhook is turned off with the reason; its owner turns it on again", async () => {
    const { api } = await new Api(server.url).newUser("wh-scope-revoke");
    const reader = api.withToken(await createAccessToken(api, ["webhooks", "notes:read"]));
    const [{ id: tokenId }] = (await api.get("/api/auth/tokens")).body.items;
    const hook = await subscribe(reader, ["note.created"]);
    await api.post("/api/notes", { title: "Before the revocation", content: "" });
    await until(() => at(hook.path).length, { timeoutMs: 20_000, what: "the event sent while the token lives" });

    expect((await api.delete(`/api/auth/tokens/${tokenId}`)).status).toBe(204);
    await api.post("/api/notes", { title: "After the revocation", content: "" });
    const off = await until(async () => (await api.get(`/api/webhooks/${hook.id}`)).body, { timeoutMs: 20_000, what: "the webhook turned off", done: (body) => body.enabled === false });
    expect(off.disabled_reason).toContain("the access token that set it up was revoked or expired");
    expect(at(hook.path).map((delivery) => delivery.json.data.title)).toEqual(["Before the revocation"]);

    // Turned on by the person (a login session), it is theirs now and carries their notes again.
    expect((await api.request("PATCH", `/api/webhooks/${hook.id}`, { json: { enabled: true } })).body).toMatchObject({ enabled: true, disabled_reason: null });
    await api.post("/api/notes", { title: "Turned on again", content: "" });
    await until(() => at(hook.path).length >= 2, { timeoutMs: 20_000, what: "the event after it was turned on again" });
    expect(at(hook.path).map((delivery) => delivery.json.data.title)).toEqual(["Before the revocation", "Turned on again"]);
  });
});

describe("deliveries", () => {
  test("note, task and graph events arrive signed per Standard Webhooks, with the record but never the content", async () => {
    const { api } = await new Api(server.url).newUser("wh-events");
    const hook = await subscribe(api, ["note.created", "note.updated", "note.deleted", "task.completed", "graph.build.completed"]);
    const note = (await api.post("/api/notes", { title: "Hooked", content: "secret body text", tags: ["a"] })).body;
    await api.put(`/api/notes/${note.id}`, { title: "Hooked again" });
    await api.delete(`/api/notes/${note.id}`);
    const task = (await api.post("/api/tasks", { platform: "web", content: "pasted text for a task" })).body;
    await api.post("/api/notes", { title: "Graph", content: "[[Alpha]] meets [[Beta]]." });
    expect((await api.post("/api/knowledge-graph/build", {})).status).toBe(202);
    const types = () => at(hook.path).map((delivery) => delivery.json.type).sort();
    await until(types, {
      timeoutMs: 30_000,
      what: "every event delivered",
      done: (seen) => ["graph.build.completed", "note.deleted", "note.updated", "task.completed"].every((type) => seen.includes(type)) && seen.filter((type) => type === "note.created").length >= 3 // two written here, one imported,
    });
    const deliveries = at(hook.path);
    for (const delivery of deliveries) {
      expect(delivery.verifyError).toBeNull();
      expect(delivery.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(delivery.id).toMatch(/^msg_/);
      expect(delivery.body).not.toContain("secret body text");
      expect(Object.keys(delivery.json).sort()).toEqual(["data", "timestamp", "type"]);
    }
    const byType = (type: string) => deliveries.find((delivery) => delivery.json.type === type)!.json.data;
    expect(byType("note.updated")).toMatchObject({ id: note.id, title: "Hooked again", tags: ["a"] });
    expect(byType("note.updated")).not.toHaveProperty("content");
    expect(byType("note.updated")).not.toHaveProperty("excerpt");
    expect(byType("note.deleted")).toMatchObject({ id: note.id, title: "Hooked again" });
    expect(byType("task.completed")).toMatchObject({ id: task.id, status: "completed" });
    expect(byType("graph.build.completed")).toMatchObject({ status: "completed" });
    // Each event once here (nothing failed), each with its own id.
    expect(new Set(deliveries.map((delivery) => delivery.id)).size).toBe(deliveries.length);
    // The log is written once a group's requests are answered, so just after the receiver saw them.
    const records = await until(() => log(api, hook.id), { what: "every delivery logged", done: (page) => page.total >= deliveries.length });
    expect(records.total).toBe(deliveries.length);
    expect(records.items[0]).toMatchObject({ attempt: 1, status_code: 200, error: null });
    expect(JSON.stringify(records)).not.toContain(hook.secret.slice(6));
  });

  test("a test event is queued with 202 and delivered; a disabled webhook is a 409 for a test and sends nothing; unsubscribed types are not sent", async () => {
    const { api } = await new Api(server.url).newUser("wh-test");
    const hook = await subscribe(api, ["task.failed"]);
    const queued = await api.post(`/api/webhooks/${hook.id}/test`);
    expect(queued.status).toBe(202);
    await until(() => at(hook.path).find((delivery) => delivery.id === queued.body.event_id), { timeoutMs: 20_000, what: "the test event" });
    expect(at(hook.path)[0]!.json).toMatchObject({ type: "webhook.test", data: { webhook_id: hook.id } });
    expect(at(hook.path)[0]!.verifyError).toBeNull();
    await api.post("/api/notes", { title: "Not subscribed", content: "" });
    await api.request("PATCH", `/api/webhooks/${hook.id}`, { json: { enabled: false } });
    const again = await api.post(`/api/webhooks/${hook.id}/test`);
    expect(again.status).toBe(409);
    expect(again.body.message).toContain("turned off");
    // Subscribed to the witness's event but turned off: it is not sent that event.
    await api.request("PATCH", `/api/webhooks/${hook.id}`, { json: { events: ["note.created"] } });
    // The event reaches another webhook of the same user; the turned-off one is not even queued.
    const witness = await subscribe(api, ["note.created"]);
    await api.post("/api/notes", { title: "Witness", content: "" });
    await until(() => at(witness.path).length, { timeoutMs: 20_000, what: "the witness delivery" });
    expect(at(hook.path)).toHaveLength(1);
    expect((await log(api, hook.id)).total).toBe(1);
  });

  test("a receiver answering 500 three times, then 200, gets the event four times with the same webhook-id, each signed", async () => {
    const { api } = await new Api(server.url).newUser("wh-retry");
    const hook = await subscribe(api, ["note.created"]);
    receiver.answer = (delivery) => (at(hook.path).filter((seen) => seen.id === delivery.id).length <= 3 ? 500 : 200);
    await api.post("/api/notes", { title: "Retried", content: "" });
    await until(() => at(hook.path).length, { timeoutMs: 30_000, what: "four attempts", done: (count) => count >= 4 });
    const attempts = at(hook.path);
    expect(attempts).toHaveLength(4);
    expect(new Set(attempts.map((attempt) => attempt.id)).size).toBe(1);
    expect(new Set(attempts.map((attempt) => attempt.body)).size).toBe(1);
    for (const attempt of attempts) expect(attempt.verifyError).toBeNull();
    const records = await until(() => log(api, hook.id), { what: "four records", done: (page) => page.total === 4 });
    expect(records.items.map((record: { attempt: number; status_code: number; error: string | null }) => [record.attempt, record.status_code, record.error])).toEqual([
      [4, 200, null],
      [3, 500, "HTTP 500"],
      [2, 500, "HTTP 500"],
      [1, 500, "HTTP 500"],
    ]);
    expect(new Set(records.items.map((record: { event_id: string }) => record.event_id))).toEqual(new Set([attempts[0]!.id]));
    expect((await api.get(`/api/webhooks/${hook.id}`)).body).toMatchObject({ enabled: true, disabled_reason: null });
  });

  test("after every delay of WEBHOOK_RETRY_DELAYS is spent, the event is given up: one more attempt than delays", async () => {
    const { api } = await new Api(server.url).newUser("wh-spent");
    const hook = await subscribe(api, ["note.created"]);
    receiver.answer = (delivery) => (delivery.path === hook.path ? 503 : 200);
    await api.post("/api/notes", { title: "Never taken", content: "" });
    await until(async () => (await log(api, hook.id)).total, { timeoutMs: 30_000, what: "four attempts", done: (total) => total >= 4 });
    // An attempt queues the next before its record is written, and a job leaves the queue only once
    // it has run: with nothing of the webhook's left queued or running, no further attempt can come.
    const queue = webhookJobs(server.databaseUrl);
    try {
      await until(() => queue.of(hook.id), { timeoutMs: 20_000, intervalMs: 100, what: "no job of the webhook left in the queue", done: (jobs) => jobs.length === 0 });
    } finally {
      await queue.close();
    }
    expect((await log(api, hook.id)).items.map((record: { attempt: number }) => record.attempt)).toEqual([4, 3, 2, 1]);
    expect(at(hook.path)).toHaveLength(4);
    expect(new Set(at(hook.path).map((delivery) => delivery.id)).size).toBe(1);
  });

  test("a receiver that hangs is cut at 10 s, recorded as a timeout with no status, and retried", async () => {
    const { api } = await new Api(server.url).newUser("wh-hang");
    const hook = await subscribe(api, ["note.created"]);
    let cut = false;
    receiver.answer = (delivery, request) => {
      if (at(hook.path).length > 1) return 200;
      return new Promise<number>((resolve) => {
        request.signal.addEventListener("abort", () => {
          cut = true;
          resolve(599);
        });
      });
    };
    await api.post("/api/notes", { title: "Slow receiver", content: "" });
    const records = await until(() => log(api, hook.id), { timeoutMs: 40_000, what: "the timeout and the retry", done: (page) => page.total >= 2 });
    const [retry, first] = records.items;
    expect(first).toMatchObject({ attempt: 1, status_code: null, error: "timeout after 10 s" });
    expect(first.duration_ms).toBeGreaterThanOrEqual(10_000);
    expect(retry).toMatchObject({ attempt: 2, status_code: 200, error: null });
    await until(() => cut, { what: "the receiver to see its request cut" });
  }, 60_000);

  test("events of one user never reach another user's webhook", async () => {
    const { api: alice } = await new Api(server.url).newUser("wh-iso-a");
    const { api: bob } = await new Api(server.url).newUser("wh-iso-b");
    const aliceHook = await subscribe(alice, ["note.created"]);
    const bobHook = await subscribe(bob, ["note.created"]);
    for (let i = 0; i < 3; i++) await alice.post("/api/notes", { title: `Alice ${i}`, content: "" });
    await bob.post("/api/notes", { title: "Bob only", content: "" });
    await until(() => at(aliceHook.path).length >= 3 && at(bobHook.path).length >= 1, { timeoutMs: 20_000, what: "both users' deliveries" });
    expect(at(aliceHook.path).map((delivery) => delivery.json.data.title).sort()).toEqual(["Alice 0", "Alice 1", "Alice 2"]);
    expect(at(bobHook.path).map((delivery) => delivery.json.data.title)).toEqual(["Bob only"]);
  });
});

describe("the address rules, without IMPORT_ALLOW_PRIVATE_NETWORKS", () => {
  let strict: TestServer;
  beforeAll(async () => {
    // IMPORT_RESOLVE (set by the test server) resolves every host name to 127.0.0.1.
    strict = await startTestServer({ WEBHOOK_RETRY_DELAYS: "100ms" });
  });
  afterAll(async () => {
    await strict?.stop();
  });

  test("a URL that resolves to a private address, or names one, is refused at delivery and the receiver sees no connection", async () => {
    const { api } = await new Api(strict.url).newUser("wh-private");
    const before = receiver.connections();
    const named = (await api.post("/api/webhooks", { url: "http://hooks.example.com:8080/in", events: ["note.created"] })).body;
    const literal = (await api.post("/api/webhooks", { url: `${receiver.origin}/literal`, events: ["note.created"] })).body;
    await api.post("/api/notes", { title: "Stays home", content: "" });
    for (const [hook, address] of [[named, "127.0.0.1"], [literal, "127.0.0.1"]] as const) {
      const records = await until(() => log(api, hook.id), { timeoutMs: 20_000, what: `webhook ${hook.url} attempted twice`, done: (page) => page.total >= 2 });
      for (const record of records.items) expect(record).toMatchObject({ status_code: null, error: `blocked address ${address}` });
    }
    expect(receiver.connections()).toBe(before);
  });
});
