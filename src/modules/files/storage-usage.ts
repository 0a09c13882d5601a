import { eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { files } from "../../db/schema";

/** How many files a user keeps and their total size, for `GET /api/auth/me`. */
export async function storageUsage(db: Database, userId: number): Promise<{ files: number; bytes: number }> {
  const [row] = await db
    .select({ files: sql<number>`count(*)`, bytes: sql<number>`coalesce(sum(${files.size}), 0)` })
    .from(files)
    .where(eq(files.userId, userId));
  return { files: Number(row?.files ?? 0), bytes: Number(row?.bytes ?? 0) };
}
