import { beforeAll, describe, expect, test } from "bun:test";
import { catchUpSearchIndex } from "../../../src/modules/search/index-notes";
import { RANKED_MATCHES, RANKED_QUERY_MATCHES, searchNotes } from "../../../src/modules/search/search-notes";
import { notesDatabaseForThisFile } from "../../support/notes-database";

const database = await notesDatabaseForThisFile();
const NOTES = RANKED_MATCHES + 150;

/** Written as an import would write them: straight into the table, indexed from the backlog. */
async function insertNotes(userId: number, rows: [title: string, content: string][]): Promise<number[]> {
  await database.client.execute({
    sql: "insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at) select ?, value ->> 0, value ->> 1, '', '[]', 0, 0 from json_each(?)",
    args: [userId, JSON.stringify(rows)],
  });
  const ids = await database.client.execute({ sql: "select id from notes where user_id = ? order by id", args: [userId] });
  return ids.rows.map((row) => Number(row.id));
}

/** Every page of a query, in order. */
async function allPages(userId: number, q: string, size: number, total: number): Promise<number[]> {
  const seen: number[] = [];
  for (let page = 1; page <= Math.ceil(total / size); page++) {
    const found = await searchNotes(database.db, { userId, q, page, size });
    expect(found.total).toBe(total);
    seen.push(...found.noteIds);
  }
  return seen;
}

beforeAll(async () => {
  await database.client.execute("insert into users (username, username_key, password_hash, created_at) values ('a', 'a', 'x', 0), ('b', 'b', 'x', 0), ('c', 'c', 'x', 0)");
  await insertNotes(1, Array.from({ length: NOTES }, (_, index) => [`Note ${index}`, index % 500 === 7 ? "lemur lemur lemur" : "lemur and other words"]));
  expect(await catchUpSearchIndex(database.db)).toBe(NOTES);
});

describe("a query matching more notes than are ranked", () => {
  test("pages cover every match once: the newest ranked by BM25, then the older newest first", async () => {
    const seen = await allPages(1, "lemur", 100, NOTES);
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

describe("pages across the two groups", () => {
  test("title matches first (by BM25), then body matches, every note once, for any page size", async () => {
    // Every fifth note names the otter in its title; the others only in the body.
    const ids = await insertNotes(3, Array.from({ length: 33 }, (_, index) => (index % 5 === 0 ? [`Otter ${index}`, "notes on rivers"] : [`River ${index}`, index % 2 ? "an otter otter swims" : "an otter swims by"])));
    await catchUpSearchIndex(database.db);
    const titled = new Set(ids.filter((_, index) => index % 5 === 0));
    for (const size of [1, 4, 7, 20, 100]) {
      const seen = await allPages(3, "otter", size, ids.length);
      expect(new Set(seen).size).toBe(ids.length);
      expect(new Set(seen.slice(0, titled.size))).toEqual(titled);
      // In the body group, notes saying it twice rank above those saying it once.
      const body = seen.slice(titled.size);
      const twice = body.filter((id) => ids.indexOf(id) % 2 === 1);
      expect(body.slice(0, twice.length)).toEqual(twice);
    }
  });
});

describe("a query matching more notes than a search ranks", () => {
  test("title matches first, then body matches, each newest first, with the exact total", async () => {
    const count = RANKED_QUERY_MATCHES + 25;
    const ids = await insertNotes(2, Array.from({ length: count }, (_, index) => (index % 1000 === 3 ? [`Heron ${index}`, "birds"] : [`Bird ${index}`, index % 7 ? "a heron" : "heron heron heron"])));
    expect(await catchUpSearchIndex(database.db)).toBe(count);
    const titled = ids.filter((_, index) => index % 1000 === 3).reverse();
    const first = await searchNotes(database.db, { userId: 2, q: "heron", page: 1, size: 20 });
    expect(first.total).toBe(count);
    expect(first.noteIds.slice(0, titled.length)).toEqual(titled);
    const rest = ids.filter((_, index) => index % 1000 !== 3).reverse();
    expect(first.noteIds.slice(titled.length)).toEqual(rest.slice(0, 20 - titled.length));
    const last = await searchNotes(database.db, { userId: 2, q: "heron", page: Math.ceil(count / 20), size: 20 });
    expect(last.noteIds).toEqual(rest.slice(-(count % 20 || 20)));
  });
});
