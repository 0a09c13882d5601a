import { fillPlaceholders } from "drizzle-orm";
import type { Client, InValue } from "@libsql/client";
import { KeptStatements, type BoundStatement } from "./kept-statements";
import { perDatabase } from "./per-database";

/** What a read needs of a built query: its SQL, with its values' placeholders in order. */
export interface ReadQuery {
  getQuery(): { sql: string; params: unknown[] };
}

/** A drizzle `.prepare()`d select: it maps rows given as arrays, as from its own run, to its fields. */
interface MappedQuery extends ReadQuery {
  all(...args: never[]): Promise<unknown>;
  get(...args: never[]): Promise<unknown>;
  mapAllResult(rows: unknown): unknown;
  mapGetResult(rows: unknown): unknown;
}

/**
 * The reads every request makes (the session check, a page of notes and its total, a note), on
 * statements SQLite prepares once (see kept-statements.ts): @libsql/client's preparing again was 25
 * µs of a 30 µs lookup by key, half of a page's read. A local database file gets one more
 * connection of its own for them, set to query only.
 *
 * It reads what the client's connections commit (WAL: each read sees the last commit). Databases
 * that are not local files read through the client, with the same answers.
 */
export class ReadStatements {
  private kept: KeptStatements | undefined;

  constructor(
    private readonly client: Client,
    file: string | undefined,
    busyTimeoutMs: number,
  ) {
    this.kept = file === undefined ? undefined : new KeptStatements(file, busyTimeoutMs, "PRAGMA query_only = ON");
  }

  /** Every row, each as an array of its columns in the select's order. */
  async rows(query: ReadQuery, values: Record<string, unknown>): Promise<unknown[][]> {
    return this.read(query, values, false) as Promise<unknown[][]>;
  }

  /** The first row, or undefined when there is none. */
  async row(query: ReadQuery, values: Record<string, unknown>): Promise<unknown[] | undefined> {
    return this.read(query, values, true) as Promise<unknown[] | undefined>;
  }

  /** A prepared select's rows as drizzle's `all` gives them (fields named and mapped), read the same way. */
  async all<Q extends MappedQuery>(query: Q, values: Record<string, unknown>): Promise<Awaited<ReturnType<Q["all"]>>> {
    return query.mapAllResult(await this.rows(query, values)) as Awaited<ReturnType<Q["all"]>>;
  }

  /** Its first row as drizzle's `get` gives it, or undefined. */
  async get<Q extends MappedQuery>(query: Q, values: Record<string, unknown>): Promise<Awaited<ReturnType<Q["get"]>>> {
    return query.mapGetResult(await this.rows(query, values)) as Awaited<ReturnType<Q["get"]>>;
  }

  /**
   * The statements' rows from one snapshot (one read transaction), each result as the client's
   * read batch gives it, its rows as arrays.
   */
  async snapshot(statements: BoundStatement[]): Promise<{ rows: unknown[][] }[]> {
    if (this.kept === undefined) {
      const results = await this.client.batch(statements, "read");
      return results.map((result) => ({ rows: result.rows.map((row) => Array.from(row)) }));
    }
    return this.kept.transaction("BEGIN", (statement) => statements.map(({ sql, args }) => ({ rows: statement(sql).all(args) as unknown[][] })));
  }

  /** Later reads go through the client. */
  close(): void {
    this.kept?.close();
    this.kept = undefined;
  }

  private async read(query: ReadQuery, values: Record<string, unknown>, first: boolean): Promise<unknown[][] | unknown[] | undefined> {
    const { sql, params } = query.getQuery();
    const args = fillPlaceholders(params, values) as InValue[];
    if (this.kept === undefined) {
      const rows = (await this.client.execute({ sql, args })).rows.map((row) => Array.from(row));
      return first ? rows[0] : rows;
    }
    // Always `all`, never `get`: in libsql 0.5.29 a `get` after an `all` of the same statement
    // answers from the earlier run (the test shows it).
    const rows = this.kept.use((statement) => statement(sql).all(args) as unknown[][]);
    return first ? rows[0] : rows;
  }
}

const byDatabase = perDatabase((db) => new ReadStatements(db.$client, undefined, 0));

/** The database's read statements: those `openNotesDatabase` set up, or reads through its client. */
export const readStatements = byDatabase.get;
export const setReadStatements = byDatabase.set;
