import { beforeAll, expect, test } from "bun:test";
import { UnavailableError } from "../../../src/modules/errors";
import { searchIndexReady } from "../../../src/modules/search/index-ready";
import { searchNotes } from "../../../src/modules/search/search-notes";
import { notesDatabaseForThisFile } from "../../support/notes-database";

// A large backlog (an archive import, the index rebuilt by an upgrade) must not hold a search past
// the request deadline: the search answers 503 with what is left while indexing goes on.
const database = await notesDatabaseForThisFile();
const NOTES = 1500;

beforeAll(async () => {
  await database.client.execute("insert into users (username, username_key, password_hash, created_at) values ('a', 'a', 'x', 0), ('b', 'b', 'x', 0)");
  const rows = Array.from({ length: NOTES }, (_, index) => [`Imported ${index}`, `A note about pangolins and their scales, number ${index}.`]);
  await database.client.execute({
    sql: "insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at) select 1, value ->> 0, value ->> 1, '', '[]', 0, 0 from json_each(?)",
    args: [JSON.stringify(rows)],
  });
  await database.client.execute("insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at) values (2, 'Mine', 'pangolins', '', '[]', 0, 0)");
});

test("past its budget a search is a 503 saying how much is left; the indexing goes on and the next search finds everything", async () => {
  const error = await searchIndexReady(database.db, 1, 0).catch((caught) => caught);
  expect(error).toBeInstanceOf(UnavailableError);
  expect(error.message).toMatch(/^Search is still indexing [\d,]+ of your notes .*; try again in a minute$/);
  // Another user's backlog is their own: theirs is indexed at once.
  expect((await searchNotes(database.db, { userId: 2, q: "pangolins", page: 1, size: 5 })).total).toBe(1);
  // Concurrent searches share the one catch-up that is running; it ends, and they all see it.
  await Promise.all([searchIndexReady(database.db, 1, 60_000), searchIndexReady(database.db, 1, 60_000)]);
  const [row] = (await database.client.execute("select count(*) as n from search_backlog")).rows;
  expect(Number(row!.n)).toBe(0);
  expect((await searchNotes(database.db, { userId: 1, q: "pangolins", page: 1, size: 5 })).total).toBe(NOTES);
});
