import type { Database } from "../../db/client";
import { NotFoundError } from "../errors";
import { meaningRanking } from "./meaning-ranking";
import { readySpace, type SemanticSettings } from "./semantic-search";
import { centroid, noteVectors } from "./vector-store";

interface RelatedNote {
  id: number;
  title: string;
  excerpt: string;
  score: number;
}

/**
 * The user's notes nearest the note in meaning: the nearest passages to the note's mean direction
 * (its title and passages), one score per note, never the note itself. With no vectors for it (no
 * embeddings set up, or not embedded yet), the notes that share the most graph concepts with it.
 */
export async function relatedNotes({ ctx, input }: { ctx: { db: Database; userId: number; semantic?: SemanticSettings }; input: { id: number; limit: number } }): Promise<{ items: RelatedNote[] }> {
  const note = await ctx.db.$client.execute({ sql: "select id from notes where id = ? and user_id = ?", args: [input.id, ctx.userId] });
  if (note.rows.length === 0) throw new NotFoundError(`Note ${input.id}`);
  const space = await readySpace(ctx.db, ctx.semantic, ctx.userId);
  const direction = space ? centroid(await noteVectors(ctx.db, space, ctx.userId, input.id)) : null;
  const ranked =
    space && direction
      ? (await meaningRanking(ctx.db, space, { userId: ctx.userId, vector: direction, limit: input.limit, excludeNoteId: input.id })).map((match) => ({ id: match.noteId, score: match.similarity }))
      : await bySharedConcepts(ctx.db, ctx.userId, input.id, input.limit);
  if (ranked.length === 0) return { items: [] };
  const rows = await ctx.db.$client.execute({
    sql: "select id, title, excerpt from notes where id in (select value from json_each(?)) and user_id = ?",
    args: [JSON.stringify(ranked.map((item) => item.id)), ctx.userId],
  });
  const byId = new Map(rows.rows.map((row) => [Number(row.id), { title: String(row.title), excerpt: String(row.excerpt) }]));
  return {
    items: ranked.flatMap((item) => {
      const found = byId.get(item.id);
      return found && item.id !== input.id ? [{ id: item.id, ...found, score: Math.round(item.score * 1e6) / 1e6 }] : [];
    }),
  };
}

/** Notes mentioning the visible concepts this note mentions, by the share of its concepts they mention too. */
async function bySharedConcepts(db: Database, userId: number, noteId: number, limit: number): Promise<{ id: number; score: number }[]> {
  const rows = await db.$client.execute({
    sql: `with mine as (select distinct m.node_id from graph_mentions m join graph_nodes g on g.id = m.node_id where m.note_id = :note and g.user_id = :user and g.hidden = 0)
      select other.note_id as id, count(distinct other.node_id) * 1.0 / (select count(*) from mine) as score
      from mine cross join graph_mentions other on other.node_id = mine.node_id
      join notes n on n.id = other.note_id
      where other.note_id != :note and n.user_id = :user
      group by other.note_id order by score desc, other.note_id desc limit :limit`,
    args: { note: noteId, user: userId, limit },
  });
  return rows.rows.map((row) => ({ id: Number(row.id), score: Number(row.score) }));
}
