import { and, eq, inArray } from "drizzle-orm";
import { graphConceptRules, graphNodeKeys, graphNodes } from "../../db/schema";
import type { Database } from "../../db/client";
import { InvalidInputError, NotFoundError } from "../errors";
import { applyGraphChangesIn } from "./apply-graph-changes";
import { displayLabel } from "./concept-key";
import { nodesQuery, parseNodes } from "./get-graph";
import { materializeGraph, needsWholeGraph } from "./materialize-graph";
import type { GraphWriter } from "./remove-note-from-graph";
import type { GraphNode } from "./read-schemas";

type Ctx = { db: Database; userId: number };
type RuleFields = Partial<Pick<typeof graphConceptRules.$inferInsert, "label" | "type" | "description" | "hidden" | "mergeInto">>;

/**
 * Renames, retypes, describes or hides a node. The correction is a rule on the node's concept key,
 * so every later build (full ones too) applies it; the node is recomputed at once, keeping its id,
 * and a new label leaves the extracted ones as aliases.
 */
export async function updateGraphNode({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { id: number; label?: string; type?: string; description?: string; hidden?: boolean };
}): Promise<GraphNode> {
  await upgradeOldGraph(ctx);
  const fields: RuleFields = {
    ...(input.label !== undefined && { label: displayLabel(input.label) }),
    ...(input.type !== undefined && { type: input.type }),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.hidden !== undefined && { hidden: input.hidden }),
  };
  if (fields.label === "") throw new InvalidInputError("label has nothing to show once invisible characters are removed");
  await ctx.db.transaction(async (tx) => {
    const [node] = await ownNodes(tx, ctx.userId, [input.id]);
    await saveRules(tx, ctx.userId, [node!.key], fields);
    await applyGraphChangesIn(tx, ctx.userId, await memberKeys(tx, [node!.id], [node!.key]));
  });
  const [updated] = parseNodes(await nodesQuery(ctx, eq(graphNodes.id, input.id)));
  if (!updated) throw new NotFoundError(`Graph node ${input.id}`);
  return updated;
}

/**
 * Merges nodes into the node `id`: each of their concept keys gets a rule naming the survivor's
 * key, so they resolve into it in every later build, their labels becoming its aliases. The
 * survivor keeps its id and takes their mentions, notes and edges.
 */
export async function mergeGraphNodes({ ctx, input }: { ctx: Ctx; input: { id: number; ids: number[] } }): Promise<{ id: number }> {
  const others = [...new Set(input.ids)].filter((id) => id !== input.id);
  if (others.length === 0) throw new InvalidInputError("ids must name at least one node other than the one merged into");
  await upgradeOldGraph(ctx);
  await ctx.db.transaction(async (tx) => {
    const [survivor, ...merged] = await ownNodes(tx, ctx.userId, [input.id, ...others]);
    const keys = await memberKeys(
      tx,
      merged.map((node) => node.id),
      merged.map((node) => node.key),
    );
    // The survivor's own keys must not point away any more, or the merged group would have no identity.
    const own = await memberKeys(tx, [survivor!.id], [survivor!.key]);
    await tx
      .update(graphConceptRules)
      .set({ mergeInto: null, updatedAt: Date.now() })
      .where(and(eq(graphConceptRules.userId, ctx.userId), inArray(graphConceptRules.key, own)));
    await saveRules(tx, ctx.userId, keys, { mergeInto: survivor!.key });
    await applyGraphChangesIn(tx, ctx.userId, [...own, ...keys]);
  });
  return { id: input.id };
}

/** The nodes in the order asked, all the user's, or a 404 naming the first that is not. */
async function ownNodes(tx: GraphWriter, userId: number, ids: number[]): Promise<{ id: number; key: string }[]> {
  const rows = await tx
    .select({ id: graphNodes.id, key: graphNodes.key })
    .from(graphNodes)
    .where(and(eq(graphNodes.userId, userId), inArray(graphNodes.id, ids)));
  const byId = new Map(rows.map((row) => [row.id, row]));
  const missing = ids.find((id) => !byId.has(id));
  if (missing !== undefined) throw new NotFoundError(`Graph node ${missing}`);
  return ids.map((id) => byId.get(id)!);
}

async function memberKeys(tx: GraphWriter, nodeIds: number[], ownKeys: string[]): Promise<string[]> {
  const rows = nodeIds.length ? await tx.select({ key: graphNodeKeys.key }).from(graphNodeKeys).where(inArray(graphNodeKeys.nodeId, nodeIds)) : [];
  return [...new Set([...ownKeys, ...rows.map((row) => row.key)])];
}

async function saveRules(tx: GraphWriter, userId: number, keys: string[], fields: RuleFields): Promise<void> {
  const now = Date.now();
  for (const key of keys) {
    await tx
      .insert(graphConceptRules)
      .values({ userId, key, ...fields, updatedAt: now })
      .onConflictDoUpdate({ target: [graphConceptRules.userId, graphConceptRules.key], set: { ...fields, updatedAt: now } });
  }
}

/** A graph written before concept keys were indexed is recomputed once, so the curated node's notes are known. */
async function upgradeOldGraph(ctx: Ctx): Promise<void> {
  if (await needsWholeGraph(ctx.db, ctx.userId)) await materializeGraph(ctx.db, ctx.userId);
}

