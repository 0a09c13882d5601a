import { afterEach, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { writeBatches, type WriteBatches } from "../../../src/db/write-batches";
import { NotFoundError, UnavailableError } from "../../../src/modules/errors";
import { createNote } from "../../../src/modules/notes/create-note";
import { updateNote } from "../../../src/modules/notes/update-note";
import { searchNotes } from "../../../src/modules/search/search-notes";
import { notesDatabaseForThisFile } from "../../support/notes-database";

const database = await notesDatabaseForThisFile();
const ALICE = 1;
const BOB = 2;
let writes: WriteBatches;
let originalRun: WriteBatches["run"];

beforeAll(async () => {
  await database.client.execute("insert into users (username, username_key, password_hash, created_at) values ('alice', 'alice', 'x', 0), ('bob', 'bob', 'x', 0)");
  writes = writeBatches(database.db);
  originalRun = writes.run.bind(writes);
});
afterEach(() => {
  writes.run = originalRun;
  setSystemTime();
});

const as = (userId: number) => ({ db: database.db, userId });

/** Runs `meanwhile` before each of the next `times` write batches, as another writer that gets there first. */
function writeBeforeBatches(times: number, meanwhile: (call: number) => Promise<unknown>): void {
  let calls = 0;
  let inside = false;
  writes.run = async (...args: Parameters<WriteBatches["run"]>) => {
    if (!inside && calls < times) {
      calls++;
      inside = true;
      try {
        await meanwhile(calls);
      } finally {
        inside = false;
      }
    }
    return originalRun(...args);
  };
}

/** What the index holds for a note: its plain text, and whether a backlog row still waits for it. */
async function entry(noteId: number): Promise<{ text: unknown; waiting: number }> {
  const text = await database.client.execute({ sql: "select body from search_texts where note_id = ?", args: [noteId] });
  const waiting = await database.client.execute({ sql: "select count(*) as n from search_backlog where note_id = ?", args: [noteId] });
  return { text: text.rows[0]?.body, waiting: Number(waiting.rows[0]!.n) };
}

const found = async (userId: number, q: string) => (await searchNotes(database.db, { userId, q, page: 1, size: 10 })).noteIds;

describe("updateNote", () => {
  test("an edit made while another lands between its read and its write applies over the other's text", async () => {
    // Both in the same millisecond: updated_at still moves, so the second edit sees the first.
    setSystemTime(new Date("2026-05-01T00:00:00Z"));
    const note = await createNote({ ctx: as(ALICE), input: { title: "Shared", content: "wombat original", tags: ["a"] } });
    writeBeforeBatches(1, () => updateNote({ ctx: as(ALICE), input: { id: note.id, content: "quokka rewritten" } }));
    const edited = await updateNote({ ctx: as(ALICE), input: { id: note.id, tags: ["b"] } });
    expect(edited).toMatchObject({ title: "Shared", content: "quokka rewritten", tags: ["b"] });
    expect(Date.parse(edited.updated_at) - Date.parse(note.updated_at)).toBe(2);
    expect(await entry(note.id)).toEqual({ text: "quokka rewritten", waiting: 0 });
    expect(await found(ALICE, "quokka")).toEqual([note.id]);
    expect(await found(ALICE, "wombat")).toEqual([]);
  });

  test("an edit whose write keeps missing gives up as unavailable; the others' writes stand", async () => {
    const note = await createNote({ ctx: as(ALICE), input: { title: "Busy", content: "first", tags: [] } });
    writeBeforeBatches(1000, (call) => updateNote({ ctx: as(ALICE), input: { id: note.id, content: `other ${call}` } }));
    const error = await updateNote({ ctx: as(ALICE), input: { id: note.id, title: "Mine" } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnavailableError);
    writes.run = originalRun;
    const stored = await database.client.execute({ sql: "select title, content from notes where id = ?", args: [note.id] });
    expect(stored.rows[0]).toMatchObject({ title: "Busy", content: "other 20" });
    expect(await entry(note.id)).toEqual({ text: "other 20", waiting: 0 });
  });

  test("another user's note is not found and stays as it was, index included", async () => {
    const note = await createNote({ ctx: as(ALICE), input: { title: "Private", content: "echidna", tags: [] } });
    await expect(updateNote({ ctx: as(BOB), input: { id: note.id, content: "taken" } })).rejects.toBeInstanceOf(NotFoundError);
    expect(await entry(note.id)).toEqual({ text: "echidna", waiting: 0 });
    expect(await found(ALICE, "echidna")).toEqual([note.id]);
    expect(await found(BOB, "taken")).toEqual([]);
  });
});
