/**
 * The SQLite result code behind an error (e.g. `SQLITE_CONSTRAINT_UNIQUE`), looking through
 * drizzle's DrizzleQueryError, which keeps libSQL's error as its `cause`. Empty when there is none.
 */
export function sqliteErrorCode(error: unknown): string {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("SQLITE_")) return code;
  }
  return "";
}

export const isConstraintViolation = (error: unknown) => sqliteErrorCode(error).startsWith("SQLITE_CONSTRAINT");

/**
 * libSQL 0.18 leaves a statement that failed with SQLITE_BUSY un-reset on its pooled connection
 * until the garbage collector finalises it, and until then a COMMIT on that connection fails ("SQL
 * statements in progress"), so writes kept answering 503 for seconds after a lock was gone — the
 * less garbage requests make, the longer. A busy database is rare; when it happens, collect at once,
 * but at most once per interval: a storm of 503s under a long lock must not become a storm of full
 * collections.
 */
const BUSY_COLLECTION_INTERVAL_MS = 250;
let lastBusyCollection = -Infinity;

export function releaseStatementsLeftByBusy(): void {
  const now = performance.now();
  if (now - lastBusyCollection < BUSY_COLLECTION_INTERVAL_MS) return;
  lastBusyCollection = now;
  Bun.gc(true);
}
