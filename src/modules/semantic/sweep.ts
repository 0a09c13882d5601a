import type { Database } from "../../db/client";
import { MAX_CONCEPTS } from "./embed-user-notes";
import { dropOtherSpaces, findSpace, spaceKey, type SpaceSettings } from "./space";

/**
 * The users with notes not yet embedded in the configured model's space (new, edited, written by
 * an import or a restore, or all after a model change) or deleted notes whose vectors remain. The
 * vectors of models no longer configured are dropped here first.
 */
export async function usersToEmbed(db: Database, settings: SpaceSettings): Promise<number[]> {
  const key = spaceKey(settings);
  await dropOtherSpaces(db, settings);
  const rows = await db.$client.execute({
    sql: `select distinct n.user_id as user_id from notes n left join semantic_notes s on s.note_id = n.id and s.space_key = :space where s.note_id is null
      union select user_id from semantic_removed
      union select u.id from users u where not exists (select 1 from semantic_users su where su.user_id = u.id and su.space_key = :space and su.ready_at is not null)`,
    args: { space: key },
  });
  const users = new Set(rows.rows.map((row) => Number(row.user_id)));
  // Users whose graph has more or fewer visible concepts than vectors of concepts or of labels (a build
  // since the last run, or concepts embedded before labels were, which gain theirs in the background).
  const space = await findSpace(db, settings);
  if (space) {
    const concepts = await db.$client.execute({
      sql: `select g.user_id as user_id from (select user_id, min(count(*), :max) as n from graph_nodes where hidden = 0 group by user_id) g
        where g.n != (select count(*) from ${space.table} v where v.user_id = g.user_id and v.kind = 'concept')
          or g.n != (select count(*) from ${space.table} v where v.user_id = g.user_id and v.kind = 'label')`,
      args: { max: MAX_CONCEPTS },
    });
    for (const row of concepts.rows) users.add(Number(row.user_id));
  }
  return [...users];
}
