import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pg from "pg";
import { getTestPostgres, withDatabaseClosed } from "../support/postgres";
import { Api, expectError } from "../support/api";
import { askStreamed } from "../support/ask-stream";
import { serverForThisFile, startTestServer, type TestServer } from "../support/server";
import { until } from "../support/until";

const { server, api } = await serverForThisFile();
const user = (await api.newUser("errors")).api;

const MIB = 1024 * 1024;
const limit = 2 * MIB;
/** A note's JSON body of exactly `size` bytes (ASCII), padded inside its content. */
const padded = (size: number) => {
  const body = JSON.stringify({ title: "t", content: "" });
  return body.slice(0, -2) + " ".repeat(size - body.length) + '"}';
};

describe("every layer answers with the contract's error body", () => {
  test("an unknown path under /api is a 404", async () => {
    expectError(await user.get("/api/unknown"), 404, "NOT_FOUND");
    expectError(await user.post("/api/notes/1/extra", {}), 404, "NOT_FOUND");
  });

  test("an unknown path outside /api is a 404", async () => {
    expectError(await api.get("/nowhere"), 404, "NOT_FOUND");
  });

  test("a wrong method is a 405 with Allow", async () => {
    const response = await user.request("PATCH", "/api/notes/1", { json: {} });
    expectError(response, 405, "METHOD_NOT_SUPPORTED");
    expect(response.headers.get("allow")).toBe("GET, PUT, DELETE");
    expectError(await user.delete("/api/auth/me"), 405, "METHOD_NOT_SUPPORTED");
  });

  test("one byte over the 2 MiB limit is a 413, exactly the limit is read", async () => {
    expect(padded(limit).length).toBe(limit);
    const atLimit = await user.request("POST", "/api/notes", { body: padded(limit), headers: { "content-type": "application/json" } });
    expect(atLimit.status).not.toBe(413);
    const over = await user.request("POST", "/api/notes", { body: padded(limit + 1), headers: { "content-type": "application/json" } });
    expectError(over, 413, "PAYLOAD_TOO_LARGE");
  });

  test("a chunked body without Content-Length is cut off at the limit too", async () => {
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream({
      pull(controller) {
        if (sent++ < 64) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const response = await fetch(`${server.url}/api/notes`, {
      method: "POST",
      headers: { authorization: `Bearer ${user.token}`, "content-type": "application/json" },
      body: stream,
    });
    expect(response.status).toBe(413);
  });

  test("over /trpc too, one byte over notes.create's 2 MiB is a 413 with the error body, exactly the limit is read", async () => {
    const trpc = (body: string) => user.request("POST", "/trpc/notes.create", { body, headers: { "content-type": "application/json" } });
    expect((await trpc(padded(limit))).status).not.toBe(413);
    const over = await trpc(padded(limit + 1));
    expectError(over, 413, "PAYLOAD_TOO_LARGE");
    expect(over.body.message).toContain("2 MiB");
  });

  test("over /trpc, tasks.create keeps its own 12 MiB limit: a 5 MiB body is read", async () => {
    // JSON whitespace makes the body 5 MiB around a small input, so the task itself is cheap.
    const body = `{"platform":"web","content":"a pasted line"${" ".repeat(5 * MIB)}}`;
    const response = await user.request("POST", "/trpc/tasks.create", { body, headers: { "content-type": "application/json" } });
    expect(response.status).toBe(200);
    expect(response.body.result.data.platform).toBe("web");
  });

  test("a tRPC batch lends no call a larger limit: each input is held to its own procedure's", async () => {
    const batch = (paths: string, inputs: unknown[]) =>
      user.request("POST", `/trpc/${paths}?batch=1`, { json: Object.fromEntries(inputs.map((input, index) => [index, input])) });
    const bigNote = { title: "t", content: "x".repeat(limit) };
    expectError(await batch("notes.create", [bigNote]), 413, "PAYLOAD_TOO_LARGE");
    const mixed = await batch("tasks.create,notes.create", [{ platform: "web", content: "small" }, bigNote]);
    expectError(mixed, 413, "PAYLOAD_TOO_LARGE");
    expect(mixed.body.message).toContain("notes.create");
    const tasks = await batch("tasks.create", [{ platform: "nowhere", content: "x".repeat(5 * MIB) }]);
    expect(tasks.status).toBe(400); // read, then refused for its platform, not its size
  });

  test("malformed JSON is a 400 that says so", async () => {
    const response = await user.request("POST", "/api/notes", { body: '{"title": ', headers: { "content-type": "application/json" } });
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.message).toStartWith("Malformed JSON");
  });

  test("an unsupported or missing content type is a 415", async () => {
    expectError(await user.request("POST", "/api/notes", { body: "title=x", headers: { "content-type": "text/plain" } }), 415, "UNSUPPORTED_MEDIA_TYPE");
    expectError(await user.request("POST", "/api/notes", { body: "title=x", headers: { "content-type": "application/x-www-form-urlencoded" } }), 415, "UNSUPPORTED_MEDIA_TYPE");
    const missing = await fetch(`${server.url}/api/notes`, { method: "POST", headers: { authorization: `Bearer ${user.token}` }, body: new Uint8Array([123, 125]) });
    expect(missing.status).toBe(415);
  });

  test("validation errors list each problem with its path", async () => {
    const response = await user.post("/api/notes", { title: "", tags: [""] });
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.message).toBe("Input validation failed");
    const paths = response.body.issues.map((issue: { path: unknown[] }) => issue.path.join("."));
    expect(paths).toEqual(["title", "tags.0"]);
    for (const issue of response.body.issues) expect(Object.keys(issue).sort()).toEqual(["message", "path"]);
  });

  test("a JSON body that is not an object is a 400", async () => {
    expectError(await user.post("/api/notes", [1, 2]), 400, "BAD_REQUEST");
    expectError(await user.post("/api/notes", "title"), 400, "BAD_REQUEST");
    expectError(await user.post("/api/notes", null), 400, "BAD_REQUEST");
  });

  test("tRPC errors carry no stack trace either", async () => {
    const response = await fetch(`${server.url}/trpc/notes.get?input=${encodeURIComponent(JSON.stringify({ id: 424242 }))}`, {
      headers: { authorization: `Bearer ${user.token}` },
    });
    expect(response.status).toBe(404);
    const text = await response.text();
    expect(text).not.toMatch(/stack|\.ts:\d+|node_modules/);
    expect(JSON.parse(text).error.data.code).toBe("NOT_FOUND");
  });
});

describe("an unexpected failure", () => {
  test("is a generic 500 with no SQL, path or stack in the body", async () => {
    const { api: victim } = await api.newUser("broken");
    // Break the database under the running server: the next list query fails inside libSQL.
    const client = server.openNotesClient();
    await client.execute("ALTER TABLE note_counts RENAME TO note_counts_gone");
    try {
      const response = await victim.get("/api/notes");
      expectError(response, 500, "INTERNAL_SERVER_ERROR");
      expect(response.body.message).toBe("Internal server error");
    } finally {
      await client.execute("ALTER TABLE note_counts_gone RENAME TO note_counts");
      client.close();
    }
    expect((await victim.get("/api/notes")).status).toBe(200);
  });
});

describe("a database that stays locked", () => {
  // Its own server, so no other test's writes contend for the lock it holds.
  let own: TestServer;
  beforeAll(async () => {
    own = await startTestServer();
  });
  afterAll(() => own.stop());

  /** Runs `during` while another connection holds SQLite's write lock, for longer than the server's 5 s busy timeout if need be. */
  async function whileLocked(during: () => Promise<void>): Promise<void> {
    const client = own.openNotesClient();
    const lock = await client.transaction("write");
    await lock.execute("update note_counts set total = total where 0");
    try {
      await during();
    } finally {
      await lock.rollback();
      client.close();
    }
  }

  test("past the busy timeout answers 503 SERVICE_UNAVAILABLE, not 500, and works again after", async () => {
    const { api: writer } = await new Api(own.url).newUser("locked");
    await whileLocked(async () => {
      const response = await writer.post("/api/notes", { title: "waits for the lock" });
      expectError(response, 503, "SERVICE_UNAVAILABLE");
      expect(response.body.message).toContain("busy");
    });
    // The first write after the lock is gone succeeds: no connection still carries a statement that failed busy.
    const after = await writer.post("/api/notes", { title: "after the lock" });
    expect(after.status).toBe(201);
  });

  test("a streamed answer that meets it ends with the contract's 503 error event, not a 500", async () => {
    const { api: asker, id } = await new Api(own.url).newUser("asker");
    // A note another writer left for the search index, which the question's retrieval indexes first.
    const client = own.openNotesClient();
    await client.execute({
      sql: "insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at) values (?, 'Pangolins', 'pangolin scales', '', '[]', 0, 0)",
      args: [id],
    });
    client.close();
    await whileLocked(async () => {
      const { status, events } = await askStreamed(own.url, asker.token!, { question: "What about pangolins?" });
      expect(status).toBe(200);
      expect(events.at(-1)).toEqual({ event: "error", data: { code: "SERVICE_UNAVAILABLE", message: expect.stringMatching(/busy|indexing/) } });
    });
  });
});

describe("GET /healthz", () => {
  test("answers ok when the databases are reachable", async () => {
    const response = await api.get("/healthz");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: "ok" });
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });

  test("answers 503 while the queue's Postgres cannot be reached, and ok again after", async () => {
    const own = await startTestServer();
    const name = new URL(own.databaseUrl).pathname.slice(1);
    const admin = new pg.Client({ connectionString: (await getTestPostgres()).connectionString });
    await admin.connect();
    try {
      await withDatabaseClosed(admin, name, async () => {
        const down = await new Api(own.url).get("/healthz");
        expect(down.status).toBe(503);
        expect(down.body).toEqual({ status: "unavailable" });
      });
      // The pool drops its terminated connections and reconnects; health follows within moments.
      const healthy = await until(() => new Api(own.url).get("/healthz"), { timeoutMs: 5_000, intervalMs: 100, what: "a healthy answer", done: (response) => response.status === 200 });
      expect(healthy.body).toEqual({ status: "ok" });
    } finally {
      await admin.end();
      await own.stop();
    }
  });
});
