import type { Database } from "../../db/client";
import { deleteExpiredSessions } from "./sessions";
import { forgetStaleThrottles } from "./throttle";

/** Auth's housekeeping, run hourly by the job queue: expired sessions and pending logins, spent throttle rows. */
export async function sweepExpiredAuthRows(db: Database, now = Date.now()): Promise<{ sessions: number; throttles: number }> {
  return { sessions: await deleteExpiredSessions(db, now), throttles: await forgetStaleThrottles(db, now) };
}
