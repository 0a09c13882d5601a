import { expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { openNotesDatabase } from "../../../src/db/client";
import { catchUpSearchIndex } from "../../../src/modules/search/index-notes";
import { searchNotes } from "../../../src/modules/search/search-notes";
import { directoryForThisFile } from "../../support/temporary-directory";

const dir = directoryForThisFile("rhizome-backfill-");

/** The migrations folder as it was before the migration tagged `*_${tag}`: its journal cut there. */
function migrationsBefore(tag: string): string {
  const folder = path.join(dir, `drizzle-before-${tag}`);
  fs.cpSync(path.resolve(import.meta.dir, "../../../drizzle"), folder, { recursive: true });
  const journalFile = path.join(folder, "meta/_journal.json");
  const journal = JSON.parse(fs.readFileSync(journalFile, "utf8"));
  const cut = journal.entries.findIndex((entry: { tag: string }) => entry.tag.endsWith(`_${tag}`));
  expect(cut).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, cut);
  fs.writeFileSync(journalFile, JSON.stringify(journal));
  return folder;
}

test("notes written before the index existed are indexed once, by the catch-up, and found", async () => {
  const url = `file:${path.join(dir, "notes.db")}`;
  const before = createClient({ url });
  await migrate(drizzle(before), { migrationsFolder: migrationsBefore("search_index") });
  await before.execute("insert into users (username, username_key, password_hash, created_at) values ('a', 'a', 'x', 0)");
  await before.execute(`insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at)
    values (1, 'Old note', '写在索引之前的**笔记**', '', '["history"]', 0, 0), (1, 'Another', 'pangolin', '', '[]', 0, 0)`);
  before.close();

  const database = await openNotesDatabase({ url });
  try {
    expect(await catchUpSearchIndex(database.db)).toBe(2);
    // Idempotent: the backlog is empty now, and a second run has nothing to do.
    expect(await catchUpSearchIndex(database.db)).toBe(0);
    const found = await searchNotes(database.db, { userId: 1, q: "索引之前", tag: "history", page: 1, size: 20 });
    expect(found).toMatchObject({ noteIds: [1], total: 1 });
    expect((await searchNotes(database.db, { userId: 1, q: "pangolin", page: 1, size: 20 })).noteIds).toEqual([2]);
  } finally {
    database.close();
  }
});

test("the word-pair migration indexes every note again, so old notes are found by phrase", async () => {
  const url = `file:${path.join(dir, "pairs.db")}`;
  const before = createClient({ url });
  await migrate(drizzle(before), { migrationsFolder: migrationsBefore("search_word_pairs") });
  await before.execute("insert into users (username, username_key, password_hash, created_at) values ('a', 'a', 'x', 0)");
  await before.execute(`insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at)
    values (1, 'Old note', 'memory attention span', '', '[]', 0, 0)`);
  // As if the app of that time had indexed it: nothing left in the backlog.
  await before.execute("delete from search_backlog");
  before.close();

  const database = await openNotesDatabase({ url });
  try {
    expect(await catchUpSearchIndex(database.db)).toBe(1);
    expect((await searchNotes(database.db, { userId: 1, q: '"memory attention span"', page: 1, size: 20 })).noteIds).toEqual([1]);
  } finally {
    database.close();
  }
});
