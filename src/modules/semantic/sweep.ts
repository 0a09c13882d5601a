import type { Database } from "../../db/client";
import type { EmbeddingsSettings } from "../llm/providers/openai-embeddings";
import { dropOtherSpaces, spaceKey } from "./space";

/**
 * The users with notes not yet embedded in the configured model's space (new, edited, written by
 * an import or a restore, or all after a model change) or deleted notes whose vectors remain. The
 * vectors of models no longer configured are dropped here first.
 */
export async function usersToEmbed(db: Database, settings: Pick<EmbeddingsSettings, "model" | "dimensions">): Promise<number[]> {
  const key = spaceKey(settings);
  await dropOtherSpaces(db, key);
  const rows = await db.$client.execute({
    sql: `select distinct n.user_id as user_id from notes n left join semantic_notes s on s.note_id = n.id and s.space_key = :space where s.note_id is null
      union select user_id from semantic_removed
      union select u.id from users u where not exists (select 1 from semantic_users su where su.user_id = u.id and su.space_key = :space and su.ready_at is not null)`,
    args: { space: key },
  });
  return rows.rows.map((row) => Number(row.user_id));
}
