import { eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { users } from "../../db/schema";

/**
 * Whether the account was deleted: background work of a deleted account (an import, a build, an
 * embedding run, a delivery) then ends quietly, since whatever it would write has nowhere to go.
 */
export async function accountGone(db: Database, userId: number): Promise<boolean> {
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.id, userId));
  return row === undefined;
}
