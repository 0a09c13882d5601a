import type { Client } from "@libsql/client";
import { KeptStatements, type BoundStatement } from "./kept-statements";
import { perDatabase } from "./per-database";

/** A statement's result as the client's batch gives it, as far as drizzle reads it: rows as arrays, and what a write changed. */
export interface BatchResult {
  rows: unknown[][];
  rowsAffected: number;
  lastInsertRowid: bigint | undefined;
}

/**
 * The write batches of the hot paths (a note created, a note edited), each one transaction on
 * statements SQLite prepares once (see kept-statements.ts): @libsql/client prepared every statement
 * of a batch again on every call, BEGIN and COMMIT included, and built an object per row; a create
 * took 8% less CPU without it. A local database file gets one more connection of its own for them,
 * with synchronous=FULL like the client's.
 *
 * A batch runs from BEGIN IMMEDIATE to COMMIT without awaiting anything, so no other batch comes
 * between on the connection; other connections' writes wait for it, or it for them, within the busy
 * timeout, as the client's own connections do. Databases that are not local files run their batches
 * through the client, with the same results.
 */
export class WriteBatches {
  private kept: KeptStatements | undefined;

  /** `synchronous`: FULL (the default) waits for the disk at each commit; NORMAL does not (see relaxedWriteBatches). */
  constructor(
    private readonly client: Client,
    file: string | undefined,
    busyTimeoutMs: number,
    synchronous: "FULL" | "NORMAL" = "FULL",
  ) {
    this.kept = file === undefined ? undefined : new KeptStatements(file, busyTimeoutMs, `PRAGMA synchronous = ${synchronous}`);
  }

  /** Runs the statements as one write transaction: all of them, or none if one fails. */
  async run(statements: BoundStatement[]): Promise<BatchResult[]> {
    if (this.kept === undefined) return (await this.client.batch(statements, "write")) as unknown as BatchResult[];
    return this.kept.transaction("BEGIN IMMEDIATE", (prepared) =>
      statements.map(({ sql, args }): BatchResult => {
        const kept = prepared(sql);
        if (kept.reader) return { rows: kept.all(args) as unknown[][], rowsAffected: 0, lastInsertRowid: undefined };
        const info = kept.run(args) as { changes: number; lastInsertRowid: number | bigint };
        return { rows: [], rowsAffected: info.changes, lastInsertRowid: BigInt(info.lastInsertRowid) };
      }),
    );
  }

  /** Later batches go through the client. */
  close(): void {
    this.kept?.close();
    this.kept = undefined;
  }
}

const byDatabase = perDatabase((db) => new WriteBatches(db.$client, undefined, 0));

/** The database's write batches: those `openNotesDatabase` set up, or batches through its client. */
export const writeBatches = byDatabase.get;
export const setWriteBatches = byDatabase.set;

const relaxedByDatabase = perDatabase((db) => new WriteBatches(db.$client, undefined, 0));

/**
 * Write batches for records whose newest rows may be lost with the machine's power, never with a
 * crash of the process: on a local file their commits do not wait for the disk (synchronous=NORMAL
 * in WAL mode; the next checkpoint, or any synced commit after them, makes them durable). Every
 * synced commit blocks the process (libSQL's local calls are synchronous) for a disk flush; the
 * webhook delivery log, written by the worker beside the API, is what uses this.
 */
export const relaxedWriteBatches = relaxedByDatabase.get;
export const setRelaxedWriteBatches = relaxedByDatabase.set;
