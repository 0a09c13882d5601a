import { fillPlaceholders, type SQL } from "drizzle-orm";
import type { InValue } from "@libsql/client";
import type { Database } from "./database";
import type { BoundStatement } from "./kept-statements";
import { perDatabase } from "./per-database";
import { readStatements } from "./read-statements";
import { writeBatches } from "./write-batches";

/**
 * Statements a hot path runs on every request, built once per database rather than per call:
 * `build` returns drizzle `.prepare()`d queries (their values as `sql.placeholder`s), and the
 * returned function hands back the same set for the same database.
 */
export function preparedPerDatabase<T>(build: (db: Database) => T): (db: Database) => T {
  return perDatabase(build).get;
}

/** What a write batch needs of a built statement: its SQL with placeholders, and how its rows are read. */
interface BuiltQuery {
  getQuery(): { sql: string; params: unknown[] };
  mapResult(result: unknown, isFromBatch?: boolean): unknown;
}

/** What a prepared query answers when run on its own, which its step answers too; libSQL's result for raw SQL. */
type StepResult<Q> = Q extends { execute(...args: never[]): infer R } ? Awaited<R> : unknown;

/** One statement of a write batch and the values for its placeholders. */
export interface BatchStep<TResult = unknown> {
  statement: BoundStatement;
  read(result: unknown): TResult;
}

/** A built statement (a `.prepare()`d query, or raw SQL built once with `rawStatement`) with this call's values. */
export function batchStep<Q extends BuiltQuery>(query: Q, values: Record<string, unknown> = {}): BatchStep<StepResult<Q>> {
  const { sql, params } = query.getQuery();
  return { statement: { sql, args: fillPlaceholders(params, values) as InValue[] }, read: (result) => query.mapResult(result, true) as StepResult<Q> };
}

/**
 * Raw SQL (a virtual table drizzle has no builder for) built into its text and placeholder list
 * once, for `batchStep`; its result is libSQL's as it is.
 */
export function rawStatement(db: Database, query: SQL): BuiltQuery {
  const built = db.run(query).getQuery();
  return { getQuery: () => built, mapResult: (result) => result };
}

type BatchResults<T extends readonly BatchStep[]> = { -readonly [K in keyof T]: T[K] extends BatchStep<infer R> ? R : never };

/**
 * Runs the steps as one transaction on statements SQLite prepared once: no query is built and
 * nothing is awaited between statements (a drizzle transaction awaits each statement, BEGIN and
 * COMMIT included). A write batch is all or nothing; a read batch sees one snapshot.
 */
export async function runBatch<const T extends readonly [BatchStep, ...BatchStep[]]>(db: Database, mode: "read" | "write", steps: T): Promise<BatchResults<T>> {
  const statements = steps.map((step) => step.statement);
  // On the statements kept for them: writes on their own connection (see write-batches.ts), reads on the read connection's.
  const results = mode === "write" ? await writeBatches(db).run(statements) : await readStatements(db).snapshot(statements);
  return results.map((result, at) => steps[at]!.read(result)) as BatchResults<T>;
}
