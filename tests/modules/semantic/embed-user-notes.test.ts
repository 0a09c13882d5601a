import { afterAll, beforeAll, expect, test } from "bun:test";
import path from "node:path";
import { openNotesDatabase } from "../../../src/db/client";
import { createEmbeddingsClient } from "../../../src/modules/llm/providers/openai-embeddings";
import { embedUserNotes } from "../../../src/modules/semantic/embed-user-notes";
import { readySpace } from "../../../src/modules/semantic/semantic-search";
import { noteUnits } from "../../../src/modules/semantic/note-units";
import { findSpace, previousLayoutKey, spaceKey } from "../../../src/modules/semantic/space";
import { usersToEmbed } from "../../../src/modules/semantic/sweep";
import { vectorBlob } from "../../../src/modules/semantic/stored-vector";
import { nearestVectors } from "../../../src/modules/semantic/vector-store";
import { startFakeEmbeddings } from "../../support/fake-embeddings";
import { notesDatabaseForThisFile } from "../../support/notes-database";

const server = startFakeEmbeddings({ dimensions: 48 });
afterAll(() => server.stop());
const notes = await notesDatabaseForThisFile();
const { dir } = notes;

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

test("a document prefix makes vectors of its own: another space, and no re-use of vectors made without it", () => {
  expect(spaceKey({ model: "nomic-embed-text", documentPrefix: "search_document: " })).not.toBe(spaceKey({ model: "nomic-embed-text" }));
  expect(spaceKey({ model: "nomic-embed-text", documentPrefix: "" })).toBe(spaceKey({ model: "nomic-embed-text" }));
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

test("vectors the first release stored as FLOAT32 fill the current layout without a call to the server; the old table goes once nothing is left", async () => {
  const upgraded = await openNotesDatabase({ url: `file:${path.join(dir, "upgraded.db")}` });
  try {
    const modelC = createEmbeddingsClient({ baseURL: server.url, model: "model-c", batchSize: 16, maxRetries: 0 });
    const user = Number((await upgraded.client.execute("insert into users (username, username_key, password_hash, created_at) values ('old', 'old', 'x', 0) returning id")).rows[0]!.id);
    const texts = [
      ["Cars", "Purchasing an automobile takes a day of paperwork at the dealer."],
      ["Bread", "Bake the sourdough loaf in a hot oven for forty minutes."],
    ];
    // The first release's layout, as its ensureSpace made it: FLOAT32, keyed by model and dimensions only.
    const table = `semantic_vectors_${previousLayoutKey(modelC.settings)}`;
    await upgraded.client.batch(
      [
        `create table ${table} (id integer primary key, user_id integer not null, note_id integer, node_id integer, kind text not null, start integer not null default 0, "end" integer not null default 0, hash text not null, embedding F32_BLOB(48) not null)`,
        `create index ${table}_ann on ${table} (libsql_vector_idx(embedding, 'metric=cosine', 'compress_neighbors=float1bit', 'max_neighbors=32'))`,
        { sql: "insert into semantic_spaces (key, model, dimensions, table_name, created_at) values (?, 'model-c', 48, ?, 0)", args: [previousLayoutKey(modelC.settings), table] },
      ],
      "write",
    );
    for (const [title, content] of texts) {
      const note = Number((await upgraded.client.execute({ sql: "insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at) values (?, ?, ?, ?, '[]', 0, 0) returning id", args: [user, title!, content!, content!] })).rows[0]!.id);
      for (const unit of noteUnits({ title: title!, content: content!, tags: [] })) {
        await upgraded.client.execute({
          sql: `insert into ${table} (user_id, note_id, kind, start, "end", hash, embedding) values (:user, :note, :kind, :start, :end, :hash, :embedding)`,
          args: { user, note, kind: unit.kind, start: unit.start, end: unit.end, hash: unit.hash, embedding: vectorBlob(server.vectorOf(unit.text, "model-c")) },
        });
      }
      await upgraded.client.execute({ sql: "insert into semantic_notes (note_id, user_id, space_key, embedded_at) values (?, ?, ?, 0)", args: [note, user, previousLayoutKey(modelC.settings)] });
    }

    // The sweep keeps the old table while its vectors are still wanted.
    expect(await usersToEmbed(upgraded.db, modelC.settings)).toContain(user);
    expect((await upgraded.client.execute({ sql: "select name from sqlite_master where name = ?", args: [table] })).rows).toHaveLength(1);
    const before = server.requests.length;
    const result = await embedUserNotes({ db: upgraded.db, client: modelC }, user);
    expect(server.requests.length).toBe(before);
    expect(result).toMatchObject({ notesEmbedded: 2, inputsEmbedded: 0 });

    const space = (await findSpace(upgraded.db, modelC.settings))!;
    expect(space.table).not.toBe(table);
    const column = await upgraded.client.execute(`select type from pragma_table_info('${space.table}') where name = 'embedding'`);
    expect(String(column.rows[0]!.type)).toBe("F8_BLOB(48)");
    expect(await readySpace(upgraded.db, { client: modelC }, user)).not.toBeNull();
    const near = await nearestVectors(upgraded.db, space, { userId: user, vector: server.vectorOf("buy a car", "model-c"), kinds: ["passage"], limit: 1 });
    expect(near[0]?.noteId).toBe(1);

    expect(await usersToEmbed(upgraded.db, modelC.settings)).not.toContain(user);
    expect((await upgraded.client.execute({ sql: "select name from sqlite_master where name = ?", args: [table] })).rows).toHaveLength(0);
  } finally {
    upgraded.close();
  }
});
