import { sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { notes, shareLinks, trashedNotes } from "../../db/schema";

/**
 * Share links that can never work again, run hourly by the job queue: expired ones (they can be
 * neither listed nor revoked) and those of notes purged for good. A note in the trash keeps its links.
 */
export async function sweepDeadShareLinks(db: Database, now = Date.now()): Promise<number> {
  const result = await db.run(sql`
    delete from ${shareLinks}
    where ${shareLinks.expiresAt} <= ${now}
      or not exists (select 1 from ${notes} where ${notes.id} = ${shareLinks.noteId})
        and not exists (select 1 from ${trashedNotes} where ${trashedNotes.id} = ${shareLinks.noteId})`);
  return result.rowsAffected;
}
