import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import pg from "pg";
import { buildOpenApiDocument } from "../../src/http/openapi-document";
import { KEEP_ALIVE_MS } from "../../src/modules/events/change-feed";
import { appRouter } from "../../src/trpc/root";
import { LISTENER_APPLICATION_NAME } from "../../src/modules/events/change-listener";
import { Api, expectError } from "../support/api";
import { openEventStream, type EventStreamReader, type StreamMessage } from "../support/event-stream";
import { serverForThisFile, startTestServer } from "../support/server";
import { startHttpApp, type HttpApp } from "../support/http-app";
import { manualClock } from "../support/manual-clock";
import { sha256Hex } from "../support/sha256";
import { until } from "../support/until";

const { server, api, db } = await serverForThisFile();
const queueDb = new pg.Client({ connectionString: server.databaseUrl });
await queueDb.connect();
afterAll(() => queueDb.end());

const streams: EventStreamReader[] = [];
async function stream(client: Api, baseUrl = server.url): Promise<EventStreamReader> {
  const reader = await openEventStream(`${baseUrl}/api/events`, { authorization: `Bearer ${client.token}` });
  streams.push(reader);
  expect(reader.response.status).toBe(200);
  return reader;
}
afterAll(() => streams.forEach((reader) => reader.close()));

const isTask = (id: number, status?: string) => (message: StreamMessage) =>
  message.event === "task" && message.data.id === id && (status === undefined || message.data.status === status);
const isGraph = (status?: string) => (message: StreamMessage) => message.event === "graph" && (status === undefined || message.data.status === status);
const STATUS_ORDER = ["pending", "running", "completed"];

/** Ids increase by one from 1: every event has one, in the order sent. */
function expectIncreasingIds(reader: EventStreamReader) {
  const ids = reader.messages.filter((message) => message.comment === undefined).map((message) => message.id);
  expect(ids).toEqual(ids.map((_, index) => index + 1));
}

describe("GET /api/events", () => {
  test("the current graph status arrives right after connecting, as GET /api/knowledge-graph/status returns it", async () => {
    const { api: alice } = await api.newUser("viewer");
    const reader = await stream(alice);
    expect(reader.response.headers.get("content-type")).toStartWith("text/event-stream");
    const first = await reader.next();
    expect(first).toEqual({ id: 1, event: "graph", data: (await alice.get("/api/knowledge-graph/status")).body });
    expect(first.data.status).toBe("idle");
  });

  test("a pasted import's task arrives on every change, in order, ending completed with its note", async () => {
    const { api: alice } = await api.newUser("importer");
    const reader = await stream(alice);
    await reader.next(isGraph());
    const created = await alice.post("/api/tasks", { platform: "web", content: "# Streamed\n\nProgress arrives live." });
    expect(created.status).toBe(201);
    const done = await reader.next(isTask(created.body.id, "completed"));
    expect(done.data).toEqual((await alice.get(`/api/tasks/${created.body.id}`)).body);
    expect(done.data.note_id).toBeGreaterThan(0);
    const states = reader.messages.filter(isTask(created.body.id)).map((message) => message.data);
    for (let i = 1; i < states.length; i++) {
      expect(STATUS_ORDER.indexOf(states[i].status)).toBeGreaterThanOrEqual(STATUS_ORDER.indexOf(states[i - 1].status));
      expect(states[i].progress).toBeGreaterThanOrEqual(states[i - 1].progress);
    }
    expectIncreasingIds(reader);
  });

  test("a graph build's status arrives to completed (local extractor), in order", async () => {
    const { api: alice } = await api.newUser("builder");
    for (const title of ["SQLite", "Postgres", "Bun"]) {
      await alice.post("/api/notes", { title, content: `${title} is a tool. [[SQLite]] works with [[Bun]] and [[Postgres]].` });
    }
    const reader = await stream(alice);
    await reader.next(isGraph("idle"));
    expect((await alice.post("/api/knowledge-graph/build", {})).status).toBe(202);
    const done = await reader.next(isGraph("completed"));
    expect(done.data).toEqual((await alice.get("/api/knowledge-graph/status")).body);
    expect(done.data.nodes).toBeGreaterThan(0);
    const states = reader.messages.filter(isGraph()).slice(1).map((message) => message.data);
    expect(states[0].status).toBe("building");
    for (let i = 1; i < states.length; i++) expect(states[i].progress).toBeGreaterThanOrEqual(states[i - 1].progress);
    expectIncreasingIds(reader);
  });

  test("a burst of 50 progress updates in a second gives at most 5 events per kind, the last one the final state", async () => {
    // The feed's clock is the test's: the second passes in 20 ms steps, whatever this machine's load.
    const { clock, advance, pending } = manualClock();
    const own = await startHttpApp({ clock });
    try {
      const { api: alice, id: userId } = await own.api.newUser("burst");
      const now = Date.now();
      const task = Number(
        (await own.notes.client.execute({ sql: "insert into import_tasks (user_id, platform, content, status, progress, message, created_at, updated_at) values (?, 'web', 'x', 'running', 0, 'Working', ?, ?) returning id", args: [userId, now, now] })).rows[0]!.id,
      );
      await own.notes.client.execute({ sql: "insert into graph_builds (user_id, mode, status, message, started_at, updated_at) values (?, 'full', 'building', 'Working', ?, ?)", args: [userId, now, now] });
      const reader = await stream(alice, own.url);
      await reader.next(isGraph("building"));
      for (let progress = 1; progress <= 50; progress++) {
        await own.notes.client.batch([
          { sql: "update import_tasks set progress = ? where id = ?", args: [progress, task] },
          { sql: "update graph_builds set progress = ? where user_id = ?", args: [progress, userId] },
        ]);
        own.feed.deliver({ userId, kind: "task", id: task });
        own.feed.deliver({ userId, kind: "graph" });
        await advance(20);
      }
      await advance(1_000);
      await reader.seen((message) => isTask(task)(message) && message.data.progress === 50);
      await reader.seen((message) => isGraph()(message) && message.data.progress === 50);
      // The only timer left is the next keep-alive: nothing is still coalescing, and no change comes.
      expect(pending()).toEqual([KEEP_ALIVE_MS - clock.now()]);
      const taskEvents = reader.messages.filter(isTask(task));
      const graphEvents = reader.messages.filter(isGraph()).slice(1);
      expect(taskEvents.length).toBeLessThanOrEqual(5);
      expect(graphEvents.length).toBeLessThanOrEqual(5);
      expect(taskEvents.at(-1)!.data.progress).toBe(50);
      expect(graphEvents.at(-1)!.data.progress).toBe(50);
    } finally {
      await own.stop();
    }
  });

  test("another user's events never appear", async () => {
    const { api: alice } = await api.newUser("alice");
    const { api: bob } = await api.newUser("bob");
    const [aliceStream, bobStream] = [await stream(alice), await stream(bob)];
    await Promise.all([aliceStream.next(isGraph()), bobStream.next(isGraph())]);
    await alice.post("/api/notes", { title: "Private", content: "[[Secret]] things about [[Alice]]." });
    const aliceTask = (await alice.post("/api/tasks", { platform: "web", content: "alice's import" })).body.id;
    await alice.post("/api/knowledge-graph/build", {});
    await aliceStream.seen(isTask(aliceTask, "completed"));
    await aliceStream.seen(isGraph("completed"));
    // Bob's own task, after Alice's changes were all delivered: his stream carries only it.
    const bobTask = (await bob.post("/api/tasks", { platform: "web", content: "bob's import" })).body.id;
    await bobStream.next(isTask(bobTask, "completed"));
    expect(bobStream.messages.filter((message) => message.event === "task").every((message) => message.data.id === bobTask)).toBe(true);
    expect(bobStream.messages.filter(isGraph()).map((message) => message.data.status)).toEqual(["idle"]);
  });

  test("without a token, or with a bad one, it is a 401 with the contract's body and a Bearer challenge", async () => {
    for (const headers of [{}, { authorization: "Bearer not-a-token" }, { authorization: "Basic abc" }] as Record<string, string>[]) {
      const response = await api.get("/api/events", headers);
      expectError(response, 401, "UNAUTHORIZED");
      expect(response.headers.get("www-authenticate")).toStartWith("Bearer");
    }
  });

  test("another method is a 405 naming GET", async () => {
    const { api: alice } = await api.newUser("method");
    const response = await alice.post("/api/events", {});
    expectError(response, 405, "METHOD_NOT_SUPPORTED");
    expect(response.headers.get("allow")).toBe("GET");
  });
});

describe("tickets for EventSource", () => {
  test("POST /api/auth/ticket gives a random single-use ticket, valid 60 s, that opens the stream once", async () => {
    const { api: alice } = await api.newUser("ticket");
    const issued = await alice.post("/api/auth/ticket");
    expect(issued.status).toBe(201);
    expect(Object.keys(issued.body).sort()).toEqual(["expires_at", "ticket"]);
    expect(issued.body.ticket.length).toBeGreaterThanOrEqual(26); // base32: 5 bits a character, so ≥ 128 bits
    const lifetime = Date.parse(issued.body.expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(50_000);
    expect(lifetime).toBeLessThanOrEqual(60_000);
    expect((await alice.post("/api/auth/ticket")).body.ticket).not.toBe(issued.body.ticket);

    const reader = await openEventStream(`${server.url}/api/events?ticket=${issued.body.ticket}`);
    streams.push(reader);
    expect(reader.response.status).toBe(200);
    expect((await reader.next()).data).toEqual((await alice.get("/api/knowledge-graph/status")).body);

    const again = await api.get(`/api/events?ticket=${issued.body.ticket}`);
    expectError(again, 401, "UNAUTHORIZED");
    expect(again.headers.get("www-authenticate")).toStartWith("Bearer");
  });

  test("a wrong or empty ticket is a 401", async () => {
    expectError(await api.get("/api/events?ticket=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), 401, "UNAUTHORIZED");
    expectError(await api.get("/api/events?ticket="), 401, "UNAUTHORIZED");
  });

  test("a ticket is not a bearer token for other routes, nor for the stream", async () => {
    const { api: alice } = await api.newUser("notbearer");
    const { ticket } = (await alice.post("/api/auth/ticket")).body;
    expectError(await alice.withToken(ticket).get("/api/auth/me"), 401, "UNAUTHORIZED");
    expectError(await alice.withToken(ticket).get("/api/events"), 401, "UNAUTHORIZED");
  });

  test("an access token is never accepted in the URL, as ?ticket=, ?token= or ?access_token=", async () => {
    const { api: alice } = await api.newUser("urltoken");
    for (const name of ["ticket", "token", "access_token"]) {
      const response = await api.get(`/api/events?${name}=${alice.token}`);
      expectError(response, 401, "UNAUTHORIZED");
    }
    // Not even beside a valid header: the token in the URL has already leaked into logs.
    expectError(await alice.get(`/api/events?access_token=${alice.token}`), 401, "UNAUTHORIZED");
  });

  test("a ticket needs a logged-in user, and logging out revokes the unused ones", async () => {
    expectError(await api.post("/api/auth/ticket"), 401, "UNAUTHORIZED");
    const { api: alice } = await api.newUser("logout");
    const { ticket } = (await alice.post("/api/auth/ticket")).body;
    expect((await alice.post("/api/auth/logout")).status).toBe(204);
    expectError(await api.get(`/api/events?ticket=${ticket}`), 401, "UNAUTHORIZED");
  });
});

describe("the OpenAPI document", () => {
  test("documents GET /api/events as text/event-stream with its ticket parameter, and POST /api/auth/ticket as a 201", () => {
    const document = buildOpenApiDocument(appRouter) as any;
    const events = document.paths["/api/events"].get;
    expect(Object.keys(events.responses["200"].content)).toEqual(["text/event-stream"]);
    expect(events.parameters).toContainEqual(expect.objectContaining({ name: "ticket", in: "query" }));
    expect(events.responses["401"]).toEqual({ $ref: "#/components/responses/Error401" });
    expect(events.security).toEqual([{ OAuth2PasswordBearer: [] }, { AccessToken: [] }]);
    const ticket = document.paths["/api/auth/ticket"].post;
    expect(ticket.responses["201"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/EventTicket" });
    expect(document.components.schemas.EventTicket.required).toEqual(["ticket", "expires_at"]);
  });
});

describe("across processes", () => {
  test("when the LISTEN connection is killed, it reconnects, the stream reads the state again, and events still arrive", async () => {
    const { api: alice } = await api.newUser("reconnect");
    const reader = await stream(alice);
    await reader.next(isGraph());
    const listeners = async () =>
      (await queueDb.query<{ pid: number }>("select pid from pg_stat_activity where application_name = $1 and datname = current_database()", [LISTENER_APPLICATION_NAME])).rows.map(
        (row) => row.pid,
      );
    const [before] = await listeners();
    expect(before).toBeNumber();
    await queueDb.query("select pg_terminate_backend($1)", [before]);
    // Back on a new connection, the server sends every stream the current state again.
    await reader.next(isGraph(), 20_000);
    expect(await listeners()).not.toContain(before);
    const created = (await alice.post("/api/tasks", { platform: "web", content: "after the reconnect" })).body;
    await reader.next(isTask(created.id, "completed"));
  });

  test("a worker in another process reaches the stream of an API-only process on the same stores", async () => {
    const apiOnly = await startTestServer({ ROLE: "api" });
    const worker = Bun.spawn([process.execPath, "run", path.resolve(import.meta.dir, "../../src/main.ts")], {
      env: { ...process.env, ROLE: "worker", DATA_DIR: apiOnly.dataDir, DATABASE_URL: apiOnly.databaseUrl, LOG_LEVEL: "warn" },
      stdout: "ignore",
      stderr: "inherit",
    });
    try {
      const remote = new Api(apiOnly.url);
      const { api: alice } = await remote.newUser("remote");
      await alice.post("/api/notes", { title: "Far away", content: "[[Workers]] talk to [[Postgres]]." });
      const reader = await stream(alice, apiOnly.url);
      await reader.next(isGraph("idle"));
      const created = (await alice.post("/api/tasks", { platform: "web", content: "imported elsewhere" })).body;
      await reader.next(isTask(created.id, "completed"), 45_000);
      await alice.post("/api/knowledge-graph/build", {});
      await reader.next(isGraph("completed"), 45_000);
      reader.close();
    } finally {
      worker.kill("SIGTERM");
      await worker.exited;
      await apiOnly.stop();
    }
  });
});

describe("idle connections", () => {
  test("a stream survives more than twice the server's idle timeout with nothing sent at all, and still delivers", async () => {
    // No keep-alives within the test: only lifting the idle timeout for the stream can keep it open.
    const own = await startHttpApp({ keepAliveMs: 10 * 60_000, idleTimeout: 2 });
    try {
      const { api: alice, id } = await own.api.newUser("idle");
      const reader = await stream(alice, own.url);
      await reader.next(isGraph("idle"));
      await Bun.sleep(5_000); // the silence under test, not a wait for something to happen
      own.feed.deliver({ userId: id, kind: "graph" });
      expect((await reader.next()).event).toBe("graph");
      reader.close();
    } finally {
      await own.stop();
    }
  });
});

describe("a stream lives only as long as the credential that opened it", () => {
  // Keep-alives (and so the credential checks) every 250 ms instead of 15 s; the last test keeps the real interval.
  let app: HttpApp;
  beforeAll(async () => {
    app = await startHttpApp({ keepAliveMs: 250 });
  });
  afterAll(() => app.stop());

  /** A token of `owner`'s, with its id. */
  async function newToken(owner: Api): Promise<{ token: string; id: number }> {
    const created = await owner.post("/api/auth/tokens", { name: "stream", scopes: ["notes:read"] });
    expect(created.status).toBe(201);
    return { token: created.body.token, id: created.body.id };
  }
  async function ticketStream(owner: Api, baseUrl: string): Promise<EventStreamReader> {
    const { ticket } = (await owner.post("/api/auth/ticket")).body;
    const reader = await openEventStream(`${baseUrl}/api/events?ticket=${ticket}`);
    streams.push(reader);
    expect(reader.response.status).toBe(200);
    return reader;
  }

  test("revoking an access token ends its stream; streams opened by another token or a login go on", async () => {
    const { api: alice } = await app.api.newUser("revoked");
    const [doomed, kept] = [await newToken(alice), await newToken(alice)];
    const readers = [await stream(alice.withToken(doomed.token), app.url), await stream(alice.withToken(kept.token), app.url), await stream(alice, app.url)];
    await Promise.all(readers.map((reader) => reader.next(isGraph())));
    expect((await alice.delete(`/api/auth/tokens/${doomed.id}`)).status).toBe(204);
    await endsWithin(readers[0]!, 5_000, "the revoked token's stream");
    await outlivesChecks(readers[1]!);
    await outlivesChecks(readers[2]!);
  });

  test("an access token or a login past its expiry ends its stream", async () => {
    const { api: alice } = await app.api.newUser("expired");
    const { api: bob } = await app.api.newUser("unexpired");
    const { token, id } = await newToken(alice);
    const readers = [await stream(alice.withToken(token), app.url), await stream(alice, app.url), await stream(bob, app.url)];
    await Promise.all(readers.map((reader) => reader.next(isGraph())));
    const past = Date.now() - 1;
    await app.notes.client.execute({ sql: "update access_tokens set expires_at = ? where id = ?", args: [past, id] });
    await app.notes.client.execute({ sql: "update sessions set expires_at = ? where id = ?", args: [past, sha256Hex(alice.token!)] });
    await endsWithin(readers[0]!, 5_000, "the expired token's stream");
    await endsWithin(readers[1]!, 5_000, "the expired login's stream");
    await outlivesChecks(readers[2]!);
  });

  test("logging out ends the streams of that login, the bearer's and the ticket's it issued; another login's go on", async () => {
    const { api: alice, username, password } = await app.api.newUser("logout");
    const other = alice.withToken(await app.api.login(username, password));
    const readers = [await stream(alice, app.url), await ticketStream(alice, app.url), await stream(other, app.url), await ticketStream(other, app.url)];
    await Promise.all(readers.map((reader) => reader.next(isGraph())));
    expect((await alice.post("/api/auth/logout")).status).toBe(204);
    await endsWithin(readers[0]!, 5_000, "the logged-out login's stream");
    await endsWithin(readers[1]!, 5_000, "the stream of a ticket the logged-out login issued");
    await outlivesChecks(readers[2]!);
    await outlivesChecks(readers[3]!);
  });

  test("with the real 15 s keep-alive, a revoked token's, a logged-out login's and its ticket's streams end within 20 s", async () => {
    const { api: alice } = await api.newUser("bound");
    const { token, id } = await newToken(alice);
    const readers = [await stream(alice.withToken(token)), await stream(alice), await ticketStream(alice, server.url)];
    await Promise.all(readers.map((reader) => reader.next(isGraph())));
    const endedBy = Date.now() + 20_000;
    expect((await alice.delete(`/api/auth/tokens/${id}`)).status).toBe(204);
    expect((await alice.post("/api/auth/logout")).status).toBe(204);
    await Promise.all(readers.map((reader, index) => endsWithin(reader, endedBy - Date.now(), `stream ${index + 1}`)));
  });
});

/** Resolves once the server has ended the stream; fails past `timeoutMs`. */
async function endsWithin(reader: EventStreamReader, timeoutMs: number, what: string): Promise<void> {
  let ended = false;
  void reader.ended.then(() => (ended = true));
  await until(() => ended, { timeoutMs, what: `${what} to end` });
}

/** Two more keep-alives arrive on the stream: it was still open after a credential check that came after what the test did. */
async function outlivesChecks(reader: EventStreamReader): Promise<void> {
  const from = reader.messages.length;
  await until(() => reader.messages.slice(from).filter((message) => message.comment === "keep-alive").length >= 2, { timeoutMs: 5_000, what: "two more keep-alives" });
}
