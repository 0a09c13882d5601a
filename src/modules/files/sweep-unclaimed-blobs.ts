import { sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { storedBlobs, type FileStorage } from "./blob-store";
import { removeUnclaimedBlobs } from "./release-files";

/** Younger bytes may belong to a write whose row is not committed yet (an image download takes ≤ 15 s). */
const UNCLAIMED_AFTER_MS = 60 * 60 * 1000;

/**
 * Removes stored bytes no file row claims: what a process killed between placing the bytes and
 * writing their row, or between deleting the last row and removing the bytes, left behind. Each
 * candidate is checked and removed by `removeUnclaimedBlobs`, in a write transaction, as deletes do.
 */
export async function sweepUnclaimedBlobs({ db, storage }: { db: Database; storage: FileStorage }, now = Date.now()): Promise<number> {
  const candidates: string[] = [];
  for await (const blob of storedBlobs(storage.dir)) if (now - blob.mtimeMs > UNCLAIMED_AFTER_MS) candidates.push(blob.sha256);
  if (candidates.length === 0) return 0;
  const claimed = new Set<string>();
  // One read for all candidates' rows, so the sweep writes (and locks) only for bytes nobody claims.
  for (let start = 0; start < candidates.length; start += 500) {
    const rows = await db.all<{ sha256: string }>(sql`select distinct sha256 from files where sha256 in ${candidates.slice(start, start + 500)}`);
    for (const row of rows) claimed.add(row.sha256);
  }
  const unclaimed = candidates.filter((sha256) => !claimed.has(sha256));
  await removeUnclaimedBlobs({ db, storage }, unclaimed);
  return unclaimed.length;
}
