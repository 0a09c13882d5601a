import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openNotesDatabase } from "../../../src/db/client";
import { createEmbeddingsClient } from "../../../src/modules/llm/providers/openai-embeddings";
import { embedUserNotes } from "../../../src/modules/semantic/embed-user-notes";
import { readySpace } from "../../../src/modules/semantic/semantic-search";
import { findSpace } from "../../../src/modules/semantic/space";
import { usersToEmbed } from "../../../src/modules/semantic/sweep";
import { startFakeEmbeddings } from "../../support/fake-embeddings";

const server = startFakeEmbeddings({ dimensions: 48 });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-embed-"));
const notes = await openNotesDatabase({ url: `file:${path.join(dir, "rhizome.db")}` });
afterAll(async () => {
  notes.close();
  fs.rmSync(dir, { recursive: true, force: true });
  await server.stop();
});

const modelA = createEmbeddingsClient({ baseURL: server.url, model: "model-a", batchSize: 16, maxRetries: 0 });
const modelB = createEmbeddingsClient({ baseURL: server.url, model: "model-b", batchSize: 16, maxRetries: 0 });
let userId: number;

beforeAll(async () => {
  const user = await notes.client.execute({ sql: "insert into users (username, username_key, password_hash, created_at) values ('embedder', 'embedder', 'x', 0) returning id", args: [] });
  userId = Number(user.rows[0]!.id);
  for (const [title, content] of <[string, string][]>[
    ["Cars", "Purchasing an automobile takes a day of paperwork at the dealer."],
    ["Bread", "Bake the sourdough loaf in a hot oven for forty minutes."],
    ["Copy", "Bake the sourdough loaf in a hot oven for forty minutes."],
  ]) {
    await notes.client.execute({
      sql: "insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at) values (?, ?, ?, ?, '[]', 0, 0)",
      args: [userId, title, content, content.slice(0, 200)],
    });
  }
});

test("every note is embedded once; a passage shared by two notes is sent once", async () => {
  const result = await embedUserNotes({ db: notes.db, client: modelA }, userId);
  expect(result.notesEmbedded).toBe(3);
  const sent = server.embedded();
  expect(sent.filter((text) => text.startsWith("Bake the sourdough"))).toHaveLength(1);
  expect(await readySpace(notes.db, { client: modelA }, userId)).not.toBeNull();
  // Nothing pending: a second run sends nothing.
  const before = server.requests.length;
  await embedUserNotes({ db: notes.db, client: modelA }, userId);
  expect(server.requests.length).toBe(before);
});

test("a model change backfills everything in a space of its own, never mixing models; the old model's vectors go", async () => {
  const spaceA = (await findSpace(notes.db, modelA.settings))!;
  // Before the backfill the new model is not ready: searches stay lexical.
  expect(await readySpace(notes.db, { client: modelB }, userId)).toBeNull();
  expect(await usersToEmbed(notes.db, modelB.settings)).toContain(userId);
  // The sweep dropped model A's table.
  const tables = await notes.client.execute({ sql: "select name from sqlite_master where type = 'table' and name = ?", args: [spaceA.table] });
  expect(tables.rows).toHaveLength(0);
  const before = server.requests.length;
  await embedUserNotes({ db: notes.db, client: modelB }, userId);
  const requests = server.requests.slice(before);
  expect(requests.every((request) => request.model === "model-b")).toBe(true);
  expect(requests.flatMap((request) => request.input)).toContain("Purchasing an automobile takes a day of paperwork at the dealer.");
  const spaceB = (await findSpace(notes.db, modelB.settings))!;
  expect(spaceB.table).not.toBe(spaceA.table);
  const count = await notes.client.execute({ sql: `select count(*) as n from ${spaceB.table} where user_id = ?`, args: [userId] });
  expect(Number(count.rows[0]!.n)).toBe(6); // three titles, three passages
  expect(await readySpace(notes.db, { client: modelB }, userId)).not.toBeNull();
});

test("a server error is recorded for the status; a 401 names the variable", async () => {
  await notes.client.execute({ sql: "insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at) values (?, 'New', 'A new note.', 'A new note.', '[]', 0, 0)", args: [userId] });
  server.mode.status = 401;
  try {
    const error = await embedUserNotes({ db: notes.db, client: modelB }, userId).catch((caught) => caught);
    expect(error.stopsBuild).toBe(true);
    const state = await notes.client.execute({ sql: "select error from semantic_users where user_id = ?", args: [userId] });
    expect(String(state.rows[0]!.error)).toContain("EMBEDDINGS_API_KEY");
  } finally {
    server.mode.status = null;
  }
  await embedUserNotes({ db: notes.db, client: modelB }, userId);
  const state = await notes.client.execute({ sql: "select error from semantic_users where user_id = ?", args: [userId] });
  expect(state.rows[0]!.error).toBeNull();
});
