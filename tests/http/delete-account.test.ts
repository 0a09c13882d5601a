// POST /api/auth/delete-account: an account with something in every corner (notes, versions, the
// trash, files, a graph, tasks, tokens, a share link, a webhook and its deliveries, a feed and its items, vectors of search
// by meaning, a login ticket, usage, transcripts, throttles) is deleted whole, while another
// account's rows are left exactly as they were. The tables are read from the schema, not listed here.
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { SCHEMA } from "../../src/jobs/graphile-internals";
import { blobPath } from "../../src/modules/files/blob-store";
import { currentTotpStep, TOTP_PERIOD_SECONDS, totpCodeAt } from "../../src/modules/auth/totp";
import { createAccessToken } from "../support/access-tokens";
import { type Api, expectError, expectUnauthorized } from "../support/api";
import { awaitBuild } from "../support/await-build";
import { awaitEmbedded } from "../support/await-embedded";
import { startFakeEmbeddings } from "../support/fake-embeddings";
import { imageBytes } from "../support/images";
import { serverForThisFile } from "../support/server";
import { settleTask } from "../support/settle-task";
import { sha256Hex } from "../support/sha256";
import { awayFromStepBoundary } from "../support/totp-steps";
import { until } from "../support/until";
import { startWebhookReceiver } from "../support/webhook-receiver";
import { startFeedServer } from "../support/feed-server";

const embeddings = startFakeEmbeddings({ dimensions: 32, apiKey: "sk-test" });
const receiver = startWebhookReceiver();
const feedHost = startFeedServer();
feedHost.serve("/feed.xml", { body: feedHost.fixture("wordpress.rss", { "https://blog.example.org": "ORIGIN/blog" }), type: "application/rss+xml", etag: '"1"' });
afterAll(() => {
  embeddings.stop();
  receiver.stop();
  feedHost.stop();
});
const { server, api, db } = await serverForThisFile(
  { EMBEDDINGS_BASE_URL: embeddings.url, EMBEDDINGS_MODEL: "fake-embed", EMBEDDINGS_API_KEY: "sk-test", GRAPH_EXTRACTOR: "local", IMPORT_ALLOW_PRIVATE_NETWORKS: "true" },
  { unscheduled: ["semantic-sweep"] },
);
const queueDb = new pg.Client({ connectionString: server.databaseUrl });
await queueDb.connect();
afterAll(() => queueDb.end());

const filesDir = path.join(server.dataDir, "files");
const sharedImage = imageBytes("png", 2000, 99);

interface Account {
  api: Api;
  id: number;
  username: string;
  password: string;
  /** The bytes of files only this account stored. */
  ownHashes: string[];
  shareUrl: string;
}

/** An account with something in every corner the API reaches, and the few it does not (seeded behind it). */
async function furnishedAccount(prefix: string, seed: number): Promise<Account> {
  const user = await api.newUser(prefix);
  const own = imageBytes("png", 3000, seed);
  const files = [];
  for (const bytes of [own, sharedImage]) {
    const uploaded = await user.api.request("POST", "/api/files", { body: bytes as BodyInit, headers: { "content-type": "image/png" } });
    expect(uploaded.status).toBe(201);
    files.push(uploaded.body);
  }
  const notes: number[] = [];
  for (const [title, content] of [
    ["Anchoring", `Anchoring effect: the first number biases the decision.\n\n![](${files[0].url})`],
    ["Sourdough", `Baking bread in a hot oven; the loaf needs time. ![](${files[1].url})`],
    ["Databases", "SQLite locks: a busy database makes writers wait for the timeout."],
  ]) {
    const created = await user.api.post("/api/notes", { title, content, tags: ["corner", prefix] });
    expect(created.status).toBe(201);
    notes.push(created.body.id);
  }
  // Versions, then one note (with its versions and a file) into the trash.
  expect((await user.api.put(`/api/notes/${notes[2]}`, { content: "SQLite locks and the busy timeout, edited." })).status).toBe(200);
  expect((await user.api.put(`/api/notes/${notes[1]}`, { content: `Edited bread. ![](${files[1].url})` })).status).toBe(200);
  expect((await user.api.delete(`/api/notes/${notes[1]}`)).status).toBe(204);
  const share = await user.api.post(`/api/notes/${notes[0]}/shares`, {});
  expect(share.status).toBe(201);
  const task = await user.api.post("/api/tasks", { platform: "web", content: "Pasted notes on decision making and anchoring numbers.", url: `https://example.com/${prefix}` });
  expect(task.status).toBe(201);
  expect((await settleTask(user.api, task.body.id)).status).toBe("completed");
  expect((await user.api.post("/api/knowledge-graph/build", { mode: "full" })).status).toBe(202);
  expect((await awaitBuild(user.api)).status.status).toBe("completed");
  await createAccessToken(user.api, ["notes:read"]);
  expect((await user.api.post("/api/auth/ticket")).status).toBe(201);
  const hook = await user.api.post("/api/webhooks", { url: `${receiver.origin}/${prefix}`, events: ["note.created"] });
  expect(hook.status).toBe(201);
  expect((await user.api.post(`/api/webhooks/${hook.body.id}/test`)).status).toBe(202);
  await until(async () => (await user.api.get(`/api/webhooks/${hook.body.id}/deliveries`)).body.items.length > 0, { what: "a delivery", timeoutMs: 15_000 });
  const feed = await user.api.post("/api/feeds", { url: feedHost.url("/feed.xml"), backfill: 1 });
  expect(feed.status).toBe(201);
  await until(async () => (await user.api.get(`/api/feeds/${feed.body.id}/items`)).body.items.some((item: { status: string }) => item.status === "imported"), { what: "a feed item imported", timeoutMs: 30_000 });
  await awaitEmbedded(user.api);
  // The build's concepts are embedded by a job of their own: every job of the account's has ended.
  await until(async () => (await queuedJobs(user.id)).count === 0, { what: `${prefix}'s jobs to end`, timeoutMs: 30_000 });
  // What the API leaves to jobs and providers: usage of questions, transcripts of the account's own media, a throttle.
  await db.batch([
    { sql: "insert into ask_usage (user_id, questions, llm_calls, input_tokens, output_tokens, updated_at) values (?, 1, 1, 100, 10, 0)", args: [user.id] },
    { sql: "insert into transcripts (media_key, source, text, duration, created_at) values (?, 'stt', 'words', 1, 0)", args: [`pasted:${user.id}:video`] },
    { sql: "insert into transcripts (media_key, source, text, duration, created_at) values (?, 'stt', 'words', 1, 0)", args: [`audio:${user.id}:${"a".repeat(64)}`] },
    { sql: "insert into transcript_pieces (media_key, plan, idx, start, \"end\", from_seconds, text, created_at) values (?, 'p', 0, 0, 1, 0, 'w', 0)", args: [`pasted:${user.id}:other`] },
    { sql: "insert into throttles (key, failures, window_started_at, blocked_until) values (?, 1, ?, 0)", args: [`2fa:user:${user.id}`, Date.now()] },
  ]);
  return { ...user, ownHashes: [sha256Hex(own)], shareUrl: share.body.url };
}

/** Tables with a column of `name`. */
async function tablesWith(name: string): Promise<string[]> {
  const rows = await db.execute({
    sql: "select m.name as name from sqlite_master m join pragma_table_info(m.name) p where m.type = 'table' and p.name = ? order by m.name",
    args: [name],
  });
  return rows.rows.map((row) => String(row.name));
}

const ids = async (query: string, userId: number) => (await db.execute({ sql: query, args: [userId] })).rows.map((row) => row[0] as number | string);

/**
 * The account's rows, table by table: those with its `user_id`, and in tables without one, those
 * linked to its notes, nodes, files, tokens, sessions or webhooks; its transcripts and throttles by key.
 */
async function accountRows(userId: number, username: string): Promise<Record<string, number>> {
  const links: Record<string, (number | string)[]> = {
    note_id: [...(await ids("select id from notes where user_id = ?", userId)), ...(await ids("select id from trashed_notes where user_id = ?", userId))],
    node_id: await ids("select id from graph_nodes where user_id = ?", userId),
    file_id: await ids("select id from files where user_id = ?", userId),
    token_id: await ids("select id from access_tokens where user_id = ?", userId),
    grant_token_id: await ids("select id from access_tokens where user_id = ?", userId),
    session_id: await ids("select id from sessions where user_id = ?", userId),
    webhook_id: await ids("select id from webhooks where user_id = ?", userId),
  };
  const counts: Record<string, number> = {};
  const count = async (key: string, query: string, args: (number | string)[]) => {
    counts[key] = Number((await db.execute({ sql: query, args })).rows[0]![0]);
  };
  for (const table of await tablesWith("user_id")) await count(table, `select count(*) from "${table}" where user_id = ?`, [userId]);
  for (const [column, values] of Object.entries(links)) {
    for (const table of await tablesWith(column)) {
      if (table in counts) continue;
      await count(`${table}.${column}`, `select count(*) from "${table}" where ${column} in (select value from json_each(?))`, [JSON.stringify(values)]);
    }
  }
  await count("notes_fts", "select count(*) from notes_fts where rowid in (select value from json_each(?))", [JSON.stringify(links.note_id)]);
  await count("users", "select count(*) from users where id = ?", [userId]);
  for (const prefix of ["pasted", "audio"]) {
    await count(`transcripts:${prefix}`, "select count(*) from transcripts where media_key like ?", [`${prefix}:${userId}:%`]);
    await count(`transcript_pieces:${prefix}`, "select count(*) from transcript_pieces where media_key like ?", [`${prefix}:${userId}:%`]);
  }
  await count("throttles", "select count(*) from throttles where key in (?, ?)", [`2fa:user:${userId}`, `login:user:${username.toLowerCase()}`]);
  return counts;
}

/** Jobs of the account's still in the queue, and the errors they recorded. */
async function queuedJobs(userId: number): Promise<{ count: number; errors: string[] }> {
  const { rows } = await queueDb.query(
    `select j.last_error from ${SCHEMA}._private_jobs j
      where (j.payload->>'userId')::int = $1 or (json_typeof(j.payload) = 'array' and (j.payload->0->>'userId')::int = $1)`,
    [userId],
  );
  return { count: rows.length, errors: rows.map((row) => row.last_error).filter(Boolean) };
}

const alice = await furnishedAccount("alice", 1);
const bob = await furnishedAccount("bob", 2);
// Alice confirms with a second factor: TOTP on, its recovery codes the codes.
const setup = await alice.api.post("/api/auth/totp/setup");
await awayFromStepBoundary();
const enabled = await alice.api.post("/api/auth/totp/enable", { code: totpCodeAt(setup.body.secret, (currentTotpStep() - 1) * TOTP_PERIOD_SECONDS * 1000) });
expect(enabled.status).toBe(200);
const recoveryCodes: string[] = enabled.body.recovery_codes;

test("every corner of both accounts holds rows before the deletion", async () => {
  for (const account of [alice, bob]) {
    const rows = await accountRows(account.id, account.username);
    for (const table of ["notes", "note_versions", "trashed_notes", "files", "graph_nodes", "graph_edges", "graph_builds", "import_tasks", "access_tokens", "share_links", "webhooks", "sessions", "event_tickets", "semantic_users", "ask_usage", "note_tags", "search_texts.note_id", "notes_fts", "graph_mentions.note_id", "webhook_deliveries.webhook_id", "feeds", "feed_items", "transcripts:pasted", "transcripts:audio", "throttles"]) {
      expect({ table, present: (rows[table] ?? 0) > 0 }).toEqual({ table, present: true });
    }
    expect(Object.keys(rows).some((table) => table.startsWith("semantic_vectors_") && rows[table]! > 0)).toBe(true);
    for (const hash of account.ownHashes) expect(fs.existsSync(blobPath(filesDir, hash))).toBe(true);
  }
});

test("a wrong password or code is a 401, a missing code a 400, and nothing is deleted", async () => {
  const before = await accountRows(alice.id, alice.username);
  const wrongPassword = await alice.api.post("/api/auth/delete-account", { password: "not the password", code: recoveryCodes[0] });
  expectUnauthorized(wrongPassword);
  const wrongCode = await alice.api.post("/api/auth/delete-account", { password: alice.password, code: "aaaaa-bbbbb" });
  expectUnauthorized(wrongCode);
  expect(wrongCode.body.message).toBe("Invalid two-factor code");
  expectError(await alice.api.post("/api/auth/delete-account", { password: alice.password }), 400, "BAD_REQUEST");
  expectError(await alice.api.post("/api/auth/delete-account", {}), 400, "BAD_REQUEST");
  const after = await accountRows(alice.id, alice.username);
  // Only the second-factor throttle counted the failures.
  expect({ ...after, throttles: 0 }).toEqual({ ...before, throttles: 0 });
  expect((await alice.api.get("/api/auth/me")).status).toBe(200);
});

test("the account goes whole, files on disk included; the other account keeps every row; the username is free again", async () => {
  const bobBefore = await accountRows(bob.id, bob.username);
  const aliceToken = await db.execute({ sql: "select count(*) as n from access_tokens where user_id = ?", args: [alice.id] });
  expect(Number(aliceToken.rows[0]!.n)).toBe(1);
  const shareBefore = await fetch(alice.shareUrl);
  expect(shareBefore.status).toBe(200);

  // An uploaded archive its task is still working through.
  const archivesDir = path.join(server.dataDir, "archives");
  fs.mkdirSync(archivesDir, { recursive: true });
  fs.writeFileSync(path.join(archivesDir, "alice-waiting.zip"), "PK");
  await db.execute({
    sql: "insert into import_tasks (user_id, platform, status, message, archive_file, upload_bytes, created_at, updated_at) values (?, 'archive', 'running', 'Importing', 'alice-waiting.zip', 2, ?, ?)",
    args: [alice.id, Date.now(), Date.now()],
  });
  // Work queued just before: an import and a build, running or waiting when the account goes.
  expect((await alice.api.post("/api/tasks", { platform: "web", content: "One more pasted note about anchoring." })).status).toBe(201);
  expect((await alice.api.post("/api/knowledge-graph/build", { mode: "full" })).status).toBe(202);
  const deleted = await alice.api.post("/api/auth/delete-account", { password: alice.password, code: recoveryCodes[1] });
  expect(deleted.status).toBe(204);
  expect(deleted.text).toBe("");

  const errors: string[] = [];
  await until(
    async () => {
      const jobs = await queuedJobs(alice.id);
      errors.push(...jobs.errors);
      return jobs.count === 0;
    },
    { what: "the deleted account's jobs to end", timeoutMs: 30_000, intervalMs: 50 },
  );
  // Ended quietly: no job of the deleted account failed.
  expect(errors).toEqual([]);
  const after = await accountRows(alice.id, alice.username);
  expect(Object.entries(after).filter(([, rows]) => rows > 0)).toEqual([]);
  for (const hash of alice.ownHashes) expect(fs.existsSync(blobPath(filesDir, hash))).toBe(false);
  expect(fs.existsSync(path.join(archivesDir, "alice-waiting.zip"))).toBe(false);
  // The picture both stored stays for the one who still has it.
  expect(fs.existsSync(blobPath(filesDir, sha256Hex(sharedImage)))).toBe(true);
  expect(await accountRows(bob.id, bob.username)).toEqual(bobBefore);
  expect((await bob.api.get("/api/notes")).body.total).toBe(4); // three written or imported by hand, one from the feed

  expectUnauthorized(await alice.api.get("/api/auth/me"));
  expect((await fetch(alice.shareUrl)).status).toBe(404);
  expectUnauthorized(await api.loginForm({ username: alice.username, password: alice.password }));
  const again = await api.post("/api/auth/register", { username: alice.username, password: "a new owner's password" });
  expect(again.status).toBe(201);
  expect(again.body.id).not.toBe(alice.id);
  const fresh = api.withToken(await api.login(alice.username, "a new owner's password"));
  expect((await fresh.get("/api/notes")).body.total).toBe(0);
  expect((await fresh.get("/api/trash")).body.total).toBe(0);
  expect((await fresh.get("/api/auth/me")).body).toMatchObject({ totp_enabled: false, storage: { files: 0, bytes: 0 } });
});

test("work in flight when the account goes (an import fetching its page, a webhook delivery and an embedding run waiting for their servers) ends quietly and writes nothing back", async () => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let fetched = false;
  const page = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch() {
      fetched = true;
      await released;
      const paragraph = "Anchoring is the first number that biases every later decision about prices. ".repeat(8);
      return new Response(`<!doctype html><html><head><title>Held page</title></head><body><article><h1>Held page</h1><p>${paragraph}</p><p>${paragraph}</p></article></body></html>`, {
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    },
  });
  try {
    const carol = await api.newUser("carol");
    const task = await carol.api.post("/api/tasks", { platform: "web", url: `http://127.0.0.1:${page.port}/held` });
    expect(task.status).toBe(201);
    await until(() => fetched, { what: "the import to fetch its page", timeoutMs: 15_000 });
    const hook = await carol.api.post("/api/webhooks", { url: `${receiver.origin}/carol`, events: ["note.created"] });
    expect(hook.status).toBe(201);
    receiver.answer = (delivery) => (delivery.path === "/carol" ? released.then(() => 200) : 200);
    embeddings.mode.delayMs = 1500;
    const asked = embeddings.requests.length;
    expect((await carol.api.post("/api/notes", { title: "Kitten", content: "A kitten asleep in the sun." })).status).toBe(201);
    await until(() => embeddings.requests.slice(asked).some((request) => request.input.some((text) => text.includes("kitten"))), { what: "the embedding run to ask its server", timeoutMs: 15_000 });
    await until(() => receiver.received.some((delivery) => delivery.path === "/carol"), { what: "the webhook delivery to reach its receiver", timeoutMs: 15_000 });

    expect((await carol.api.post("/api/auth/delete-account", { password: carol.password })).status).toBe(204);
    release();
    const errors: string[] = [];
    await until(
      async () => {
        const jobs = await queuedJobs(carol.id);
        errors.push(...jobs.errors);
        return jobs.count === 0;
      },
      { what: "the deleted account's jobs to end", timeoutMs: 30_000, intervalMs: 50 },
    );
    // The embedding answer came back after the deletion, and its run ended.
    await until(() => embeddings.requests.length > asked && Date.now() - embeddings.requests.at(-1)!.at > 1600, { what: "the embedding answer", timeoutMs: 15_000 });
    expect(errors).toEqual([]);
    const after = await accountRows(carol.id, carol.username);
    expect(Object.entries(after).filter(([, rows]) => rows > 0)).toEqual([]);
  } finally {
    embeddings.mode.delayMs = 0;
    receiver.answer = () => 200;
    release();
    page.stop(true);
  }
});
