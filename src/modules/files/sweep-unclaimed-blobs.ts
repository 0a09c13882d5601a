import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import type { FileStorage } from "./blob-store";
import { removeUnclaimedBlobs } from "./release-files";

/** Younger bytes may belong to a write whose row is not committed yet (an image download takes ≤ 15 s). */
const UNCLAIMED_AFTER_MS = 60 * 60 * 1000;

const BLOB_NAME = /^[0-9a-f]{64}$/;

/**
 * Removes stored bytes no file row claims: what a process killed between placing the bytes and
 * writing their row, or between deleting the last row and removing the bytes, left behind. Each
 * candidate is checked and removed by `removeUnclaimedBlobs`, in a write transaction, as deletes do.
 */
export async function sweepUnclaimedBlobs({ db, storage }: { db: Database; storage: FileStorage }, now = Date.now()): Promise<number> {
  const candidates: string[] = [];
  for (const shard of await readdirOrEmpty(storage.dir)) {
    if (!/^[0-9a-f]{2}$/.test(shard)) continue; // `tmp` and anything else is not ours to judge here
    for (const name of await readdirOrEmpty(path.join(storage.dir, shard))) {
      if (!BLOB_NAME.test(name) || !name.startsWith(shard)) continue;
      const stat = await fs.promises.stat(path.join(storage.dir, shard, name)).catch(() => null);
      if (stat && now - stat.mtimeMs > UNCLAIMED_AFTER_MS) candidates.push(name);
    }
  }
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

async function readdirOrEmpty(directory: string): Promise<string[]> {
  return fs.promises.readdir(directory).catch(() => []);
}
