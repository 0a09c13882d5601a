import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import Libsql from "libsql";
import { eq, gte, sql } from "drizzle-orm";
import { openNotesDatabase } from "../../src/db/client";
import { ReadStatements, readStatements } from "../../src/db/read-statements";
import { sqliteErrorCode } from "../../src/db/errors";
import { users } from "../../src/db/schema";
import { notesDatabaseForThisFile } from "../support/notes-database";

const database = await notesDatabaseForThisFile();
const { dir, file } = database;

async function addUser(name: string, createdAt: number): Promise<number> {
  const [user] = await database.db.insert(users).values({ username: name, usernameKey: name, passwordHash: "x", createdAt }).returning({ id: users.id });
  return user!.id;
}

const userById = () => database.db.select({ name: users.username, createdAt: users.createdAt }).from(users).where(eq(users.id, sql.placeholder("id"))).prepare();

describe("read statements", () => {
  test("answer rows as arrays in the select's order, and the first row or undefined", async () => {
    const id = await addUser("arrays", 7);
    const reads = readStatements(database.db);
    const byId = userById();
    expect(await reads.rows(byId, { id })).toEqual([["arrays", 7]]);
    expect(await reads.row(byId, { id })).toEqual(["arrays", 7]);
    expect(await reads.row(byId, { id: id + 1000 })).toBeUndefined();
    expect(await reads.rows(byId, { id: id + 1000 })).toEqual([]);
  });

  test("see each commit of the client's connections at once, through the same statement", async () => {
    const id = await addUser("before", 1);
    const reads = readStatements(database.db);
    const byId = userById();
    expect(await reads.row(byId, { id })).toEqual(["before", 1]);
    for (const name of ["after", "again"]) {
      await database.db.update(users).set({ username: name }).where(eq(users.id, id));
      expect(await reads.row(byId, { id })).toEqual([name, 1]);
    }
    await database.db.delete(users).where(eq(users.id, id));
    expect(await reads.row(byId, { id })).toBeUndefined();
  });

  test("answer each run from its own values, whether the run before read one row or many", async () => {
    const ids = [await addUser("first", 11), await addUser("second", 12), await addUser("third", 13)];
    const reads = readStatements(database.db);
    const from = database.db.select({ name: users.username }).from(users).where(gte(users.id, sql.placeholder("id"))).orderBy(users.id).prepare();
    // libsql's own `get` after an `all` of one statement answers from the earlier run; reads never use it.
    for (const [at, id] of ids.entries()) {
      expect(await reads.rows(from, { id })).toEqual(ids.slice(at).map((_, index) => [["first", "second", "third"][at + index]]));
      expect(await reads.row(from, { id })).toEqual([["first", "second", "third"][at]]);
    }
    expect(await reads.row(from, { id: ids[2]! })).toEqual(["third"]);
  });

  test("never write: the connection is query-only", async () => {
    const reads = readStatements(database.db);
    const insert = database.db
      .insert(users)
      .values({ username: sql.placeholder("name"), usernameKey: sql.placeholder("name"), passwordHash: "x", createdAt: 0 })
      .returning({ id: users.id })
      .prepare();
    const error = await reads.rows(insert, { name: "never" }).catch((caught: unknown) => caught);
    expect(String(error)).toContain("readonly");
    expect(await database.db.$count(users, eq(users.username, "never"))).toBe(0);
  });

  test("a failed read drops its connection and statements; the next read opens them again", async () => {
    await database.client.execute("create table scratch (value text)");
    await database.client.execute("insert into scratch values ('one')");
    const reads = readStatements(database.db);
    const all = database.db.all(sql`select value from scratch`);
    expect(await reads.rows(all, {})).toEqual([["one"]]);
    await database.client.execute("drop table scratch");
    expect(String(await reads.rows(all, {}).catch((caught: unknown) => caught))).toContain("no such table");
    await database.client.execute("create table scratch (value text)");
    await database.client.execute("insert into scratch values ('two')");
    expect(await reads.rows(all, {})).toEqual([["two"]]);
  });

  test("a read that meets a lock past its busy timeout fails as busy (a 503 upstream), and the next read works", async () => {
    // A file of its own: a connection in exclusive locking mode can take its lock only while no
    // other connection has the file open, and then keeps every other connection out, readers too.
    const lockedFile = path.join(dir, "locked.db");
    const holder = new Libsql(lockedFile, { timeout: 1000 });
    holder.exec("PRAGMA journal_mode = WAL");
    holder.exec("CREATE TABLE t (value TEXT)");
    holder.exec("INSERT INTO t VALUES ('kept')");
    holder.exec("PRAGMA locking_mode = EXCLUSIVE");
    holder.exec("BEGIN EXCLUSIVE");
    holder.exec("COMMIT");
    const reads = new ReadStatements(database.client, lockedFile, 100);
    const all = database.db.all(sql`select value from t`);
    try {
      const error = await reads.rows(all, {}).catch((caught: unknown) => caught);
      expect(sqliteErrorCode(error)).toStartWith("SQLITE_BUSY");
    } finally {
      holder.close();
    }
    expect(await reads.rows(all, {})).toEqual([["kept"]]);
    reads.close();
  });

  test("give a prepared select's rows as drizzle does, fields named and mapped (a boolean column as a boolean)", async () => {
    const id = await addUser("mapped", 21);
    const reads = readStatements(database.db);
    const query = database.db.select({ name: users.username, totp: users.totpEnabled }).from(users).where(eq(users.id, sql.placeholder("id"))).prepare();
    expect(await reads.all(query, { id })).toEqual(await query.all({ id }));
    expect(await reads.get(query, { id })).toEqual({ name: "mapped", totp: false });
    expect(await reads.get(query, { id: id + 1000 })).toBeUndefined();
  });

  test("read the file the client writes, whatever the form of its file: URL", async () => {
    const spaced = path.join(dir, "a dir with spaces");
    for (const url of [`file://${encodeURI(path.join(spaced, "one.db"))}`, `file:${path.join(spaced, "two.db")}`]) {
      const other = await openNotesDatabase({ url });
      try {
        const [user] = await other.db.insert(users).values({ username: "url", usernameKey: "url", passwordHash: "x", createdAt: 5 }).returning({ id: users.id });
        const byId = other.db.select({ name: users.username }).from(users).where(eq(users.id, sql.placeholder("id"))).prepare();
        expect(await readStatements(other.db).row(byId, { id: user!.id })).toEqual(["url"]);
      } finally {
        other.close();
      }
    }
    expect(fs.readdirSync(spaced).filter((name) => name.endsWith(".db")).sort()).toEqual(["one.db", "two.db"]);
  });

  test("read several statements in one snapshot as the client's read batch does, and leave no transaction open", async () => {
    const id = await addUser("snapshot", 31);
    const byId = userById().getQuery();
    const count = database.db.select({ n: sql<number>`count(*)` }).from(users).toSQL();
    const statements = [
      { sql: byId.sql, args: [id] },
      { sql: count.sql, args: [] },
    ];
    const through = new ReadStatements(database.client, undefined, 0);
    const [first, total] = await readStatements(database.db).snapshot(statements);
    expect([first, total]).toEqual(await through.snapshot(statements));
    expect(first!.rows).toEqual([["snapshot", 31]]);
    // Were the snapshot's transaction left open, the next one would not see this commit.
    await addUser("after the snapshot", 32);
    const [, after] = await readStatements(database.db).snapshot(statements);
    expect(after!.rows).toEqual([[Number(total!.rows[0]![0]) + 1]]);
    const failed = await readStatements(database.db).snapshot([{ sql: "select * from no_such_table", args: [] }]).catch((caught: unknown) => caught);
    expect(String(failed)).toContain("no such table");
    expect((await readStatements(database.db).snapshot(statements))[0]!.rows).toEqual([["snapshot", 31]]);
  });

  test("a database that is not a local file is read through the client, with the same answers", async () => {
    const id = await addUser("through-client", 9);
    const reads = new ReadStatements(database.client, undefined, 0);
    const byId = userById();
    expect(await reads.rows(byId, { id })).toEqual([["through-client", 9]]);
    expect(await reads.row(byId, { id: id + 1000 })).toBeUndefined();
  });
});
