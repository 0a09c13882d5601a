import { describe, expect, test } from "bun:test";
import path from "node:path";
import { type Client, createClient } from "@libsql/client";
import { createLocalFileClient } from "../../src/db/local-file-client";
import { sqliteErrorCode } from "../../src/db/errors";
import { directoryForThisFile } from "../support/temporary-directory";

const dir = directoryForThisFile("rhizome-local-client-");

/** A client with a 50 ms busy timeout on a fresh WAL database with one table, and a second client to hold the lock. */
async function lockedPair(name: string): Promise<{ client: Client; other: Client }> {
  const file = path.join(dir, `${name}.db`);
  const client = createLocalFileClient(file, 50);
  await client.execute("PRAGMA journal_mode = WAL");
  await client.execute("create table t (x integer)");
  return { client, other: createClient({ url: `file:${file}` }) };
}

const busyCode = (promise: Promise<unknown>) => promise.then(() => "no error", (error: unknown) => sqliteErrorCode(error));

describe("a client connection whose statement failed busy", () => {
  // libsql leaves such a statement active until it is garbage-collected; the pool lends the most recent connection first.
  test("is not lent again: once the lock is gone, the next batch commits, and so does the next single write", async () => {
    const { client, other } = await lockedPair("after-busy");
    try {
      const lock = await other.transaction("write");
      await lock.execute("insert into t values (0)");
      expect(await busyCode(client.execute("insert into t values (1)"))).toBe("SQLITE_BUSY");
      expect(await busyCode(client.batch(["insert into t values (1)"], "write"))).toBe("SQLITE_BUSY");
      await lock.rollback();

      // On the connection left as it was, this COMMIT failed: "cannot commit transaction - SQL statements in progress".
      await client.batch(["insert into t values (2)"], "write");
      // And this answered success without committing, keeping the write lock.
      await client.execute("insert into t values (3)");
      expect((await other.execute("select x from t order by x")).rows.map((row) => row.x)).toEqual([2, 3]);
      const after = await other.transaction("write");
      await after.execute("insert into t values (4)");
      await after.commit();
      expect((await client.execute("select count(*) as n from t")).rows[0]!.n).toBe(3);
    } finally {
      client.close();
      other.close();
    }
  });

  test("in a transaction that fails busy upgrading to a write, is rolled back and dropped, leaving no lock behind", async () => {
    const { client, other } = await lockedPair("in-transaction");
    try {
      await client.execute("insert into t values (1)");
      const reading = await client.transaction("read");
      expect((await reading.execute("select count(*) as n from t")).rows[0]!.n).toBe(1);
      const lock = await other.transaction("write");
      await lock.execute("insert into t values (2)");
      await lock.commit();
      // Its snapshot is older than the last commit, so it can never write: busy, whatever the timeout.
      expect(await busyCode(reading.execute("insert into t values (3)"))).toMatch(/^SQLITE_(BUSY|READONLY)/);
      reading.close();
      await client.batch(["insert into t values (4)"], "write");
      await other.execute("insert into t values (5)");
      expect((await other.execute("select x from t order by x")).rows.map((row) => row.x)).toEqual([1, 2, 4, 5]);
    } finally {
      client.close();
      other.close();
    }
  });
});
