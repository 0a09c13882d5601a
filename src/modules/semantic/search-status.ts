import type { Database } from "../../db/client";
import { readySpace, type SemanticSettings } from "./semantic-search";
import { findSpace, spaceKey } from "./space";

/** How far the caller's notes are embedded, in the configured model, and what a search uses now. */
export async function getSearchStatus({ ctx }: { ctx: { db: Database; userId: number; semantic?: SemanticSettings } }) {
  const total = await ctx.db.$client.execute({ sql: "select coalesce((select total from note_counts where user_id = ?), 0) as n", args: [ctx.userId] });
  const notesTotal = Number(total.rows[0]?.n ?? 0);
  if (!ctx.semantic) return { mode: "lexical" as const, model: null, dimensions: null, notes_total: notesTotal, notes_embedded: 0, pending: 0, error: null };
  const settings = ctx.semantic.client.settings;
  const key = spaceKey(settings);
  const [space, ready, state] = await Promise.all([
    findSpace(ctx.db, settings),
    readySpace(ctx.db, ctx.semantic, ctx.userId),
    ctx.db.$client.execute({
      sql: `select (select count(*) from semantic_notes where user_id = :user and space_key = :space) as embedded,
        (select error from semantic_users where user_id = :user and space_key = :space) as error`,
      args: { user: ctx.userId, space: key },
    }),
  ]);
  const embedded = Math.min(notesTotal, Number(state.rows[0]?.embedded ?? 0));
  const error = state.rows[0]?.error;
  return {
    mode: ready ? ("hybrid" as const) : ("lexical" as const),
    model: settings.model,
    dimensions: space?.dimensions ?? settings.dimensions ?? null,
    notes_total: notesTotal,
    notes_embedded: embedded,
    pending: notesTotal - embedded,
    error: typeof error === "string" ? error : null,
  };
}
