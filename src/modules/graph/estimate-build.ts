import { asc, count, desc, eq } from "drizzle-orm";
import { graphNodes, graphNoteRemovals } from "../../db/schema";
import type { Database } from "../../db/client";
import { createBuildExtractor, extractorIdentity, type ExtractorSettings } from "./create-extractor";
import { notesToExtract } from "./notes-to-extract";
import type { BuildEstimate, BuildMode } from "./schemas";

const EXISTING_CONCEPTS = 200;

/**
 * What a build would do and cost, with no LLM call: the notes it would extract (outdated ones
 * among them) and the deletions it would report, and the calls and tokens of the prompts the
 * extractor would send for those notes (first tries; re-asks are not foreseen). The local
 * extractor costs nothing.
 */
export async function estimateBuild({
  ctx,
  input,
}: {
  ctx: { db: Database; userId: number; graphSettings: ExtractorSettings };
  input: { mode: BuildMode };
}): Promise<BuildEstimate> {
  const identity = extractorIdentity(ctx.graphSettings);
  const [{ all, todo, outdated }, [removals], existing] = await Promise.all([
    notesToExtract(ctx.db, { id: 0, userId: ctx.userId, mode: input.mode }, identity),
    ctx.db.select({ total: count() }).from(graphNoteRemovals).where(eq(graphNoteRemovals.userId, ctx.userId)),
    ctx.db
      .select({ label: graphNodes.label })
      .from(graphNodes)
      .where(eq(graphNodes.userId, ctx.userId))
      .orderBy(desc(graphNodes.weight), asc(graphNodes.id))
      .limit(EXISTING_CONCEPTS),
  ]);
  const cost = { llm_calls: 0, input_tokens: 0, output_tokens: 0 };
  if (identity.extractor !== "local") {
    const extractor = await createBuildExtractor(ctx.graphSettings, []);
    // The build offers the graph's heaviest concepts (its own new names come after them).
    const names = existing.map((node) => node.label);
    for (const { note } of todo) {
      const usage = extractor.estimate?.(note, names);
      if (!usage) continue;
      cost.llm_calls += usage.llm_calls;
      cost.input_tokens += usage.input_tokens;
      cost.output_tokens += usage.output_tokens;
    }
  }
  return {
    mode: input.mode,
    extractor: identity.extractor,
    model: identity.model,
    notes_total: all.length,
    notes_to_extract: todo.length,
    notes_outdated: outdated,
    notes_to_remove: removals?.total ?? 0,
    estimated_llm_calls: cost.llm_calls,
    estimated_input_tokens: cost.input_tokens,
    estimated_output_tokens: cost.output_tokens,
  };
}
