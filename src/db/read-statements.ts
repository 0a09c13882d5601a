import Libsql from "libsql";
import { fillPlaceholders } from "drizzle-orm";
import type { Client, InValue } from "@libsql/client";
import type { Database } from "./client";

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

type Statement = ReturnType<Libsql.Database["prepare"]>;

/**
 * The reads every request makes (the session check, a page of notes and its total, a note), on
 * statements SQLite prepares once. @libsql/client prepares a statement's SQL again on every run,
 * and that was the larger part of each read: 25 µs of a 30 µs lookup by key, half of a page's
 * read. So a local database file gets one more connection of its own, set to query only, whose
 * statements are kept by their SQL (the hot reads are a fixed handful) and answer rows as arrays.
 *
 * It reads what the client's connections commit (WAL: each read sees the last commit). After any
 * failure (a busy database) the connection is closed with its statements and opened again for the
 * next read, so nothing a failed statement left behind can outlive it. Databases that are not
 * local files read through the client, with the same answers.
 */
export class ReadStatements {
  private connection: Libsql.Database | undefined;
  private readonly statements = new Map<string, Statement>();
  private closed = false;

  constructor(
    private readonly client: Client,
    private readonly file: string | undefined,
    private readonly busyTimeoutMs: number,
  ) {}

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

  close(): void {
    this.closed = true;
    this.discard();
  }

  private async read(query: ReadQuery, values: Record<string, unknown>, first: boolean): Promise<unknown[][] | unknown[] | undefined> {
    const { sql, params } = query.getQuery();
    const args = fillPlaceholders(params, values) as InValue[];
    if (this.file === undefined || this.closed) {
      const rows = (await this.client.execute({ sql, args })).rows.map((row) => Array.from(row));
      return first ? rows[0] : rows;
    }
    try {
      // Always `all`, never `get`: in libsql 0.5.29 a `get` after an `all` of the same statement
      // answers from the earlier run (the test shows it).
      const rows = this.statement(sql).all(args) as unknown[][];
      return first ? rows[0] : rows;
    } catch (error) {
      this.discard();
      throw error;
    }
  }

  private discard(): void {
    this.statements.clear();
    this.connection?.close();
    this.connection = undefined;
  }

  private statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      if (this.connection === undefined) {
        this.connection = new Libsql(this.file!, { timeout: this.busyTimeoutMs });
        this.connection.exec("PRAGMA query_only = ON");
      }
      statement = this.connection.prepare(sql).raw(true);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

const byDatabase = new WeakMap<Database, ReadStatements>();

/** The database's read statements: those `openNotesDatabase` set up, or reads through its client. */
export function readStatements(db: Database): ReadStatements {
  let reads = byDatabase.get(db);
  if (reads === undefined) {
    reads = new ReadStatements(db.$client, undefined, 0);
    byDatabase.set(db, reads);
  }
  return reads;
}

export function setReadStatements(db: Database, reads: ReadStatements): void {
  byDatabase.set(db, reads);
}
