import type { Database } from "./database";

/**
 * A value kept per database: the one set for it, or else the one `fallback` builds on first use.
 * Tests open many databases in one process, so values are keyed by the database in a `WeakMap`
 * and go when it does.
 */
export function perDatabase<T>(fallback: (db: Database) => T): { get(db: Database): T; set(db: Database, value: T): void } {
  const values = new WeakMap<Database, T>();
  return {
    get(db) {
      let value = values.get(db);
      if (value === undefined) {
        value = fallback(db);
        values.set(db, value);
      }
      return value;
    },
    set(db, value) {
      values.set(db, value);
    },
  };
}
