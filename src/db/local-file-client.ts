import type Libsql from "libsql";
import type { Client } from "@libsql/client";
import { ConnectionPool, Sqlite3Client } from "@libsql/client/sqlite3";
import { sqliteErrorCode } from "./errors";

/**
 * The libSQL client for a local database file, as `createClient` makes it, except that a pooled
 * connection on which a statement failed busy is closed instead of lent again.
 *
 * Why: libsql 0.5 leaves a statement whose step failed with SQLITE_BUSY (or SQLITE_LOCKED) active
 * on its connection until the garbage collector finalises it, and @libsql/client prepares a
 * statement per call and returns the connection to its pool. Until that collection, on that
 * connection, a COMMIT fails ("cannot commit transaction - SQL statements in progress", a busy
 * error, so a 503), and an autocommit write is not committed at all: it answers success and keeps
 * the write lock, so every other connection's write waits out the busy timeout.
 *
 * The pool and client classes are @libsql/client 0.18's own (exported, marked private); the test
 * of this file fails if a release changes what they do.
 */
export function createLocalFileClient(file: string, busyTimeoutMs: number): Client {
  const pool = new BusyClosingPool(file, { timeout: busyTimeoutMs } as Libsql.Options, MAX_CONNECTIONS);
  // Fails at once, as createClient does, when the file cannot be opened at all.
  const probe = pool.acquireSync();
  try {
    probe.prepare("SELECT 1").all();
  } catch (error) {
    pool.close();
    throw error;
  } finally {
    pool.release(probe);
  }
  return new Sqlite3Client(pool, "number");
}

/** createClient's default `concurrency`. */
const MAX_CONNECTIONS = 20;

const isBusy = (error: unknown) => /^SQLITE_(BUSY|LOCKED)/.test(sqliteErrorCode(error));

class BusyClosingPool extends ConnectionPool {
  readonly #watched = new WeakSet<Libsql.Database>();
  readonly #failedBusy = new WeakSet<Libsql.Database>();

  override acquireSync(forTransaction?: boolean): Libsql.Database {
    const db = super.acquireSync(forTransaction);
    if (!this.#watched.has(db)) {
      this.#watched.add(db);
      this.#watch(db);
    }
    return db;
  }

  override release(db: Libsql.Database): void {
    if (this.#failedBusy.has(db) && db.open) {
      try {
        // Closing alone would keep what an open transaction holds until the statements are finalised.
        if (db.inTransaction) db.exec("ROLLBACK");
      } catch {
        // Then the transaction ends when the connection does.
      }
      db.close();
    }
    super.release(db); // a closed connection leaves the pool; the next borrower gets a new one
  }

  /** Marks the connection when one of its statements fails busy. */
  #watch(db: Libsql.Database): void {
    const prepare = db.prepare.bind(db);
    const markBusy = (error: unknown) => {
      if (isBusy(error)) this.#failedBusy.add(db);
      return error;
    };
    db.prepare = ((sql: string) => {
      const statement = prepare(sql);
      for (const method of ["run", "get", "all", "iterate"] as const) {
        const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
        (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
          try {
            return original(...args);
          } catch (error) {
            throw markBusy(error);
          }
        };
      }
      return statement;
    }) as typeof db.prepare;
  }
}
