import Libsql from "libsql";
import type { InValue } from "@libsql/client";

export type KeptStatement = ReturnType<Libsql.Database["prepare"]>;

/** A statement's SQL with its values, in the order of its `?`s. */
export interface BoundStatement {
  sql: string;
  args: InValue[];
}

/**
 * A connection of its own to a local database file, opened on first use, whose statements SQLite
 * prepares once and keeps by their SQL (the hot paths run a fixed handful). @libsql/client prepares
 * every statement again on every call; that was most of a lookup by key and 7% of a note's create
 * (profiled). Statements that return rows answer them as arrays.
 *
 * After any failure (a busy database, a constraint) the work's transaction is rolled back and the
 * connection closed with its statements, to be opened again for the next use, so nothing a failed
 * statement left behind can outlive it.
 */
export class KeptStatements {
  private connection: Libsql.Database | undefined;
  private readonly statements = new Map<string, KeptStatement>();

  /** `setup`: the PRAGMAs each new connection runs first (they are per connection). */
  constructor(
    private readonly file: string,
    private readonly busyTimeoutMs: number,
    private readonly setup: string,
  ) {}

  /** Runs `work` with the connection's statements; on failure, drops them with the connection and rethrows. */
  use<T>(work: (statement: (sql: string) => KeptStatement) => T): T {
    try {
      return work((sql) => this.statement(sql));
    } catch (error) {
      this.abandon();
      throw error;
    }
  }

  /** `work` in one transaction: BEGIN (or BEGIN IMMEDIATE, to write) … COMMIT, nothing awaited in between. */
  transaction<T>(begin: "BEGIN" | "BEGIN IMMEDIATE", work: (statement: (sql: string) => KeptStatement) => T): T {
    return this.use((statement) => {
      statement(begin).run([]);
      const result = work(statement);
      statement("COMMIT").run([]);
      return result;
    });
  }

  close(): void {
    this.abandon();
  }

  /**
   * Rolls back, then drops the connection. Closing it alone is not enough: libSQL closes it only
   * once the garbage collector has finalised its statements, and until then it would hold what the
   * open transaction holds (the write lock).
   */
  private abandon(): void {
    try {
      if (this.connection?.inTransaction) this.connection.exec("ROLLBACK");
    } catch {
      // Then the transaction ends when the connection closes; the caller's error is the one to report.
    }
    this.statements.clear();
    this.connection?.close();
    this.connection = undefined;
  }

  private statement(sql: string): KeptStatement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      if (this.connection === undefined) {
        this.connection = new Libsql(this.file, { timeout: this.busyTimeoutMs });
        this.connection.exec(this.setup);
      }
      statement = this.connection.prepare(sql);
      // BEGIN, COMMIT and writes without RETURNING give no rows, and libSQL refuses raw mode for them.
      if (statement.reader) statement.raw(true);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
