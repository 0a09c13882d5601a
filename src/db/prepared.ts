import type { Database } from "./client";

/**
 * Statements a hot path runs on every request, built once per database rather than per call:
 * `build` returns drizzle `.prepare()`d queries (their values as `sql.placeholder`s), and the
 * returned function hands back the same set for the same database. Tests open many databases in
 * one process, so the sets are keyed by the database and go when it does.
 */
export function preparedPerDatabase<T>(build: (db: Database) => T): (db: Database) => T {
  const built = new WeakMap<Database, T>();
  return (db) => {
    let statements = built.get(db);
    if (statements === undefined) {
      statements = build(db);
      built.set(db, statements);
    }
    return statements;
  };
}
