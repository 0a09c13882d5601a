import { sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { log } from "../../log";
import { UnavailableError } from "../errors";
import { catchUpSearchIndex } from "./index-notes";

/**
 * How long a search waits for its user's backlog (notes an import wrote, or an upgrade that
 * rebuilt the index left) to be indexed: ~2,000 notes at ~2 ms each. A larger backlog goes on
 * being indexed in the background while the request answers 503; a search that waited for 20,000
 * notes would outlive the 30 s every request is answered within.
 */
export const CATCH_UP_BUDGET_MS = 5_000;

/** One catch-up per user and database at a time, however many searches ask for it. */
const running = new WeakMap<Database, Map<number, Promise<void>>>();

/**
 * Resolves once the user's notes are all in the search index, indexing what is missing first;
 * past `budgetMs` an UnavailableError says how many notes are left, and the indexing goes on.
 */
export async function searchIndexReady(db: Database, userId: number, budgetMs = CATCH_UP_BUDGET_MS): Promise<void> {
  let jobs = running.get(db);
  if (!jobs) running.set(db, (jobs = new Map()));
  let job = jobs.get(userId);
  if (!job) {
    job = catchUpSearchIndex(db, { userId }).then(
      () => undefined,
      (error) => {
        log.warn(`indexing user ${userId}'s notes for search failed; the next search tries again`, error);
        throw error;
      },
    );
    const started = job;
    jobs.set(userId, started);
    // Settled: the next search starts a new one (for anything written since). Handled here too, so
    // a failure nobody waits for any more is not an unhandled rejection.
    started.then(
      () => jobs.delete(userId),
      () => jobs.delete(userId),
    );
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), budgetMs)));
  try {
    if ((await Promise.race([job, late])) !== "late") return;
  } finally {
    clearTimeout(timer);
  }
  const [row] = await db.all<{ n: number }>(sql`select count(*) as n from search_backlog where user_id = ${userId}`);
  const left = Number(row?.n ?? 0).toLocaleString("en-US");
  throw new UnavailableError(`Search is still indexing ${left} of your notes (written by an import, or kept from before an upgrade); try again in a minute`);
}
