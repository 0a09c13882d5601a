import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openNotesDatabase, type NotesDatabase } from "../../../src/db/client";
import { catchUpSearchIndex } from "../../../src/modules/search/index-notes";
import { RANKED_MATCHES, searchNotes } from "../../../src/modules/search/search-notes";

let dir: string;
let database: NotesDatabase;
const NOTES = RANKED_MATCHES + 150;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-search-"));
  database = await openNotesDatabase({ url: `file:${path.join(dir, "notes.db")}` });
  await database.client.execute("insert into users (username, username_key, password_hash, created_at) values ('a', 'a', 'x', 0)");
  // Written as an import would write them: straight into the table, indexed from the backlog.
  const rows = Array.from({ length: NOTES }, (_, index) => [`Note ${index}`, index % 500 === 7 ? "lemur lemur lemur" : "lemur and other words", "[]"]);
  await database.client.execute({
    sql: "insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at) select 1, value ->> 0, value ->> 1, '', value ->> 2, 0, 0 from json_each(?)",
    args: [JSON.stringify(rows)],
  });
  expect(await catchUpSearchIndex(database.db)).toBe(NOTES);
});
afterAll(() => {
  database.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("a query matching more notes than are ranked", () => {
  test("pages cover every match once: the newest ranked by BM25, then the older newest first", async () => {
    const seen: number[] = [];
    for (let page = 1; page <= Math.ceil(NOTES / 100); page++) {
      const found = await searchNotes(database.db, { userId: 1, q: "lemur", page, size: 100 });
      expect(found.total).toBe(NOTES);
      seen.push(...found.noteIds);
    }
    expect(new Set(seen).size).toBe(NOTES);
    const ids = [...seen].sort((a, b) => b - a);
    const newest = ids.slice(0, RANKED_MATCHES);
    // Notes saying "lemur" three times outrank the others among the newest.
    const dense = newest.filter((id) => (id - 1) % 500 === 7);
    expect(seen.slice(0, dense.length)).toEqual(dense);
    expect(new Set(seen.slice(0, RANKED_MATCHES))).toEqual(new Set(newest));
    expect(seen.slice(RANKED_MATCHES)).toEqual(ids.slice(RANKED_MATCHES));
  });
});
