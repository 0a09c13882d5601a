import { sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { conceptKey } from "../graph/concept-key";
import { tokenize } from "../search/tokens";

export interface GraphConcept {
  id: number;
  label: string;
  /** The label and aliases: what a passage is searched for. */
  names: string[];
}

// The longest name looked for, in tokens (a CJK character is a token): "Thinking, Fast and Slow", 认知行为疗法.
const MAX_NAME_TOKENS = 10;
// A question of 500 characters has at most a few thousand spans to look up; more is noise.
const MAX_SPANS = 4000;

/**
 * The user's visible concepts that the question names by label or alias. Every run of up to
 * MAX_NAME_TOKENS words (or CJK characters: a Chinese question has no spaces) is looked up by its
 * concept key, as the graph keys names; where two names overlap, the longer wins ("sourdough
 * starter" over "starter"), so a name inside a longer one is not a second concept.
 */
export async function namedConcepts(db: Database, userId: number, question: string): Promise<GraphConcept[]> {
  const tokens = tokenize(question);
  const spans = new Map<string, { start: number; end: number }[]>();
  for (let from = 0; from < tokens.length && spans.size < MAX_SPANS; from++) {
    for (let to = from; to < Math.min(tokens.length, from + MAX_NAME_TOKENS); to++) {
      const key = conceptKey(question.slice(tokens[from]!.start, tokens[to]!.end));
      if (!key) continue;
      const at = { start: tokens[from]!.start, end: tokens[to]!.end };
      spans.set(key, [...(spans.get(key) ?? []), at]);
    }
  }
  if (spans.size === 0) return [];
  const rows = await db.all<{ key: string; id: number; label: string; aliases: string }>(sql`
    select k.key as key, n.id as id, n.label as label, n.aliases as aliases
    from json_each(${JSON.stringify([...spans.keys()])}) j
    cross join graph_node_keys k on k.user_id = ${userId} and k.key = j.value
    cross join graph_nodes n on n.id = k.node_id
    where n.user_id = ${userId} and n.hidden = 0`);
  const found = rows.flatMap((row) => spans.get(row.key)!.map((span) => ({ ...span, row })));
  // Longest first; a match inside a longer one's span is dropped.
  found.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
  const kept: typeof found = [];
  for (const match of found) {
    if (kept.some((other) => other.row.id !== match.row.id && other.start <= match.start && match.end <= other.end)) continue;
    kept.push(match);
  }
  const concepts = new Map<number, GraphConcept>();
  for (const { row } of kept.sort((a, b) => a.start - b.start)) {
    if (!concepts.has(row.id)) concepts.set(row.id, { id: row.id, label: row.label, names: conceptNames(row.label, row.aliases) });
  }
  return [...concepts.values()];
}

export function conceptNames(label: string, aliasesJson: string): string[] {
  const aliases = JSON.parse(aliasesJson) as unknown;
  return [label, ...(Array.isArray(aliases) ? aliases.filter((alias): alias is string => typeof alias === "string") : [])];
}
