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
