import { and, desc, eq, or, sql } from "drizzle-orm";
import { graphEdges, graphMentions, graphNodes, notes } from "../../db/schema";
import type { Database } from "../../db/client";
import { NotFoundError } from "../errors";
import { edgesQuery, heaviestFirst, nodesQuery, parseEdges, parseNodes } from "./get-graph";
import type { GraphNodeDetail, GraphNodeNote } from "./read-schemas";

export const EXCERPT_MAX_CHARS = 300;

/**
 * One node with its direct neighbours (either direction), the edges that connect them, and the
 * user's notes that mention it. Notes come most mentions first, then most recently updated: the
 * note that talks about the concept most is the best place to read about it. Each note's excerpt
 * is its first passage (lowest offset) mentioning the node. Deleted notes take their mentions with
 * them (ON DELETE CASCADE), and the join with `notes` keeps out anything not the user's.
 */
export async function getGraphNode({ ctx, input }: { ctx: { db: Database; userId: number }; input: { id: number } }): Promise<GraphNodeDetail> {
  // `+` keeps SQLite on the source and target indexes rather than the user's whole edge range.
  const touching = and(sql`+${graphEdges.userId} = ${ctx.userId}`, or(eq(graphEdges.sourceId, input.id), eq(graphEdges.targetId, input.id)));
  const neighbourIds = sql`(
    select ${graphEdges.targetId} from ${graphEdges} where ${graphEdges.userId} = ${ctx.userId} and ${graphEdges.sourceId} = ${input.id}
    union
    select ${graphEdges.sourceId} from ${graphEdges} where +${graphEdges.userId} = ${ctx.userId} and ${graphEdges.targetId} = ${input.id})`;
  const mentions = sql<number>`count(*)`;
  // A bare column beside min() takes its value from the row holding the minimum (SQLite): the first passage.
  const linkedNotes = ctx.db
    .select({ id: notes.id, title: notes.title, passage: graphMentions.passage, firstStart: sql<number>`min(${graphMentions.start})` })
    .from(graphMentions)
    .innerJoin(notes, eq(notes.id, graphMentions.noteId))
    .where(and(eq(graphMentions.nodeId, input.id), eq(notes.userId, ctx.userId)))
    .groupBy(notes.id)
    .orderBy(desc(mentions), desc(notes.updatedAt), desc(notes.id));

  // One batch: one read transaction, so the four parts come from the same build.
  const [nodeRows, edgeRows, neighbourRows, noteRows] = await ctx.db.batch([
    nodesQuery(ctx, eq(graphNodes.id, input.id)),
    edgesQuery(ctx, touching),
    nodesQuery(ctx, and(sql`${graphNodes.id} in ${neighbourIds}`, sql`${graphNodes.id} <> ${input.id}`)),
    linkedNotes,
  ]);
  const node = parseNodes(nodeRows)[0];
  if (!node) throw new NotFoundError(`Graph node ${input.id}`);
  return {
    node,
    neighbours: parseNodes(neighbourRows).sort(heaviestFirst),
    edges: parseEdges(edgeRows).sort(heaviestFirst),
    notes: noteRows.map((row): GraphNodeNote => ({ id: row.id, title: row.title, excerpt: toExcerpt(row.passage) })),
  };
}

/** Whitespace runs as one space, trimmed, cut at a word boundary near the limit with an ellipsis. */
export function toExcerpt(passage: string): string {
  const text = passage.replace(/\s+/g, " ").trim();
  const chars = Array.from(text);
  if (chars.length <= EXCERPT_MAX_CHARS) return text;
  const cut = chars.slice(0, EXCERPT_MAX_CHARS - 1).join("");
  const space = cut.lastIndexOf(" ");
  return `${(space > EXCERPT_MAX_CHARS * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
