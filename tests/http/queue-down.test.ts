import { afterAll, describe, expect, test } from "bun:test";
import pg from "pg";
import { Api, expectError } from "../support/api";
import { getTestPostgres, withDatabaseClosed } from "../support/postgres";
import { serverForThisFile } from "../support/server";
import { settleTask } from "../support/settle-task";
import { until } from "../support/until";

// CONTRACT "Errors": creating a task or starting a build while the queue is unreachable is a 503
// with Retry-After, and nothing is half-created.

const { server } = await serverForThisFile();
const queueDatabase = new URL(server.databaseUrl).pathname.slice(1);
const admin = new pg.Client({ connectionString: (await getTestPostgres()).connectionString });
await admin.connect();
afterAll(async () => {
  await admin.query(`alter database ${queueDatabase} allow_connections true`).catch(() => {});
  await admin.end();
});

/** Runs `body` while the server's queue database refuses connections, and lets them in again after. */
function withQueueDown(body: () => Promise<void>): Promise<void> {
  return withDatabaseClosed(admin, queueDatabase, body);
}

/** The pool drops its terminated connections and reconnects on the next request: the first answer that is not a 503. */
function once503sStop<T extends { status: number }>(request: () => Promise<T>): Promise<T> {
  return until(request, { timeoutMs: 10_000, intervalMs: 100, what: "an answer other than 503", done: (response) => response.status !== 503 });
}

function expectQueueDown(response: { status: number; body: any; text: string; headers: Headers }) {
  expectError(response, 503, "SERVICE_UNAVAILABLE");
  expect(response.body.message).toBe("The job queue is unavailable; try again shortly");
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
}

async function notesRows(sql: string, userId: number): Promise<number> {
  const client = server.openNotesClient();
  try {
    return Number((await client.execute({ sql, args: [userId] })).rows[0]![0]);
  } finally {
    client.close();
  }
}

describe("while the job queue's Postgres is unreachable", () => {
  test("creating an import task is a 503 with Retry-After and leaves no task behind; it works once the queue is back", async () => {
    const { api: user, id } = await new Api(server.url).newUser("qdown");
    await withQueueDown(async () => {
      expectQueueDown(await user.post("/api/tasks", { platform: "xiaohongshu", content: "周末的咖啡馆\n\n一家安静的小店" }));
      expect(await notesRows("select count(*) from import_tasks where user_id = ?", id)).toBe(0);
      expect((await user.get("/api/tasks")).body).toMatchObject({ items: [] });
    });
    const created = await once503sStop(() => user.post("/api/tasks", { platform: "xiaohongshu", content: "周末的咖啡馆\n\n一家安静的小店" }));
    expect(created.status).toBe(201);
    expect(await notesRows("select count(*) from import_tasks where user_id = ?", id)).toBe(1);
  });

  test("creating an archive task is a 503 with Retry-After and leaves neither a task nor the uploaded file behind", async () => {
    const { api: user, id } = await new Api(server.url).newUser("adown");
    const { buildZip } = await import("../support/zip-builder");
    const upload = () =>
      user.request("POST", "/api/tasks/archive", { body: buildZip([{ name: "a.md", data: "# A" }]) as BodyInit, headers: { "content-type": "application/zip" } });
    await withQueueDown(async () => {
      expectQueueDown(await upload());
      expect(await notesRows("select count(*) from import_tasks where user_id = ?", id)).toBe(0);
      const fs = await import("node:fs");
      const archives = `${server.dataDir}/archives`;
      expect(fs.existsSync(archives) ? fs.readdirSync(archives) : []).toEqual([]);
    });
    const created = await once503sStop(upload);
    expect(created.status).toBe(201);
    // Its job finishes before the next test takes the queue down, so no job of ours is running then.
    expect((await settleTask(user, created.body.id)).status).toBe("completed");
  });

  test("starting a graph build is a 503 with Retry-After and leaves no build behind; it starts once the queue is back", async () => {
    const { api: user, id } = await new Api(server.url).newUser("gdown");
    expect((await user.post("/api/notes", { title: "A note", content: "About [[Graphs]]." })).status).toBe(201);
    await withQueueDown(async () => {
      expectQueueDown(await user.post("/api/knowledge-graph/build", { mode: "full" }));
      expect(await notesRows("select count(*) from graph_builds where user_id = ?", id)).toBe(0);
      expect((await user.get("/api/knowledge-graph/status")).body).toMatchObject({ status: "idle", build_id: null });
    });
    const started = await once503sStop(() => user.post("/api/knowledge-graph/build", { mode: "full" }));
    expect(started.status).toBe(202);
    expect(await notesRows("select count(*) from graph_builds where user_id = ?", id)).toBe(1);
  });
});
