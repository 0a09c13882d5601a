import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import Libsql from "libsql";
import { eq, sql } from "drizzle-orm";
import { openNotesDatabase, type NotesDatabase } from "../../src/db/client";
import { sqliteErrorCode } from "../../src/db/errors";
import { batchStep, runBatch } from "../../src/db/prepared";
import { WriteBatches, writeBatches } from "../../src/db/write-batches";
import { users } from "../../src/db/schema";
import { notesDatabaseForThisFile } from "../support/notes-database";

const database = await notesDatabaseForThisFile();
const { dir } = database;
let memory: NotesDatabase;

beforeAll(async () => {
  memory = await openNotesDatabase({ url: ":memory:" });
});
afterAll(() => {
  memory.close();
});

const insertUser = (notes: NotesDatabase) =>
  notes.db
    .insert(users)
    .values({ username: sql.placeholder("name"), usernameKey: sql.placeholder("name"), passwordHash: "x", createdAt: sql.placeholder("at") })
    .returning({ id: users.id, name: users.username, createdAt: users.createdAt, totp: users.totpEnabled })
    .prepare();
const renameUser = (notes: NotesDatabase) =>
  notes.db.update(users).set({ username: sql`${sql.placeholder("name")}` }).where(eq(users.id, sql.placeholder("id"))).prepare();
const countUsers = async (notes: NotesDatabase, name: string) => Number((await notes.client.execute({ sql: "select count(*) from users where username = ?", args: [name] })).rows[0]![0]);

describe("write batches", () => {
  test("give each step what the client's batch gives (an in-memory database runs on it), as drizzle maps it", async () => {
    for (const notes of [database, memory]) {
      const [[inserted], missed] = await runBatch(notes.db, "write", [
        batchStep(insertUser(notes), { name: "ada", at: 3 }),
        batchStep(renameUser(notes), { name: "nobody", id: -1 }),
      ]);
      expect(inserted).toEqual({ id: expect.any(Number), name: "ada", createdAt: 3, totp: false });
      expect(missed.rowsAffected).toBe(0);
      const [changed] = await runBatch(notes.db, "write", [batchStep(renameUser(notes), { name: "ada lovelace", id: inserted!.id })]);
      expect(changed.rowsAffected).toBe(1);
      expect(await countUsers(notes, "ada lovelace")).toBe(1);
    }
  });

  test("a commit is seen at once by the client's connections and by the next batch", async () => {
    const [[user]] = await runBatch(database.db, "write", [batchStep(insertUser(database), { name: "seen", at: 1 })]);
    expect(await countUsers(database, "seen")).toBe(1);
    await database.client.execute({ sql: "update users set username = 'seen again' where id = ?", args: [user!.id] });
    const [renamed] = await runBatch(database.db, "write", [batchStep(renameUser(database), { name: "seen thrice", id: user!.id })]);
    expect(renamed.rowsAffected).toBe(1);
    expect(await countUsers(database, "seen thrice")).toBe(1);
  });

  test("are all or nothing: a step that fails undoes the steps before it, and the next batch works", async () => {
    const error = await runBatch(database.db, "write", [
      batchStep(insertUser(database), { name: "half", at: 1 }),
      // The same username again: a unique constraint.
      batchStep(insertUser(database), { name: "half", at: 2 }),
    ]).catch((caught: unknown) => caught);
    expect(sqliteErrorCode(error)).toStartWith("SQLITE_CONSTRAINT");
    expect(await countUsers(database, "half")).toBe(0);
    await runBatch(database.db, "write", [batchStep(insertUser(database), { name: "half", at: 3 })]);
    expect(await countUsers(database, "half")).toBe(1);
  });

  test("write with synchronous=FULL, as the client's connections do", async () => {
    const [setting] = await writeBatches(database.db).run([{ sql: "PRAGMA synchronous", args: [] }]);
    expect(setting!.rows).toEqual([[2]]);
  });

  test("a batch that meets a lock past its busy timeout fails as busy (a 503 upstream), writes nothing, and the next batch works", async () => {
    const file = path.join(dir, "locked.db");
    const holder = new Libsql(file, { timeout: 1000 });
    holder.exec("PRAGMA journal_mode = WAL");
    holder.exec("CREATE TABLE t (value TEXT)");
    const writes = new WriteBatches(database.client, file, 100);
    holder.exec("BEGIN IMMEDIATE");
    try {
      const error = await writes.run([{ sql: "INSERT INTO t VALUES (?)", args: ["blocked"] }]).catch((caught: unknown) => caught);
      expect(sqliteErrorCode(error)).toStartWith("SQLITE_BUSY");
    } finally {
      holder.exec("ROLLBACK");
    }
    const [inserted] = await writes.run([{ sql: "INSERT INTO t VALUES (?)", args: ["after"] }]);
    expect(inserted!.rowsAffected).toBe(1);
    expect(holder.prepare("SELECT value FROM t").raw(true).all()).toEqual([["after"]]);
    writes.close();
    holder.close();
  });
});
