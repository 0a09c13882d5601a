import { eq } from "drizzle-orm";
import { graphConceptRules } from "../../db/schema";
import type { Database } from "../../db/client";
import type { GraphWriter } from "./remove-note-from-graph";
import type { ConceptRule, ConceptRules } from "./node-stats";

/** The user's curation rules by concept key (a handful per user: read whole). */
export async function loadConceptRules(db: Database | GraphWriter, userId: number): Promise<Map<string, ConceptRule>> {
  const rows = await db.select().from(graphConceptRules).where(eq(graphConceptRules.userId, userId));
  return new Map(
    rows.map((row) => [row.key, { label: row.label, type: row.type, description: row.description, hidden: row.hidden, mergeInto: row.mergeInto }]),
  );
}

/** Keys tied to `keys` by merge rules, either way. */
export function ruleNeighbours(rules: ConceptRules, keys: Iterable<string>): string[] {
  const wanted = new Set(keys);
  const found: string[] = [];
  for (const [key, rule] of rules) {
    if (!rule.mergeInto) continue;
    if (wanted.has(key)) found.push(rule.mergeInto);
    if (wanted.has(rule.mergeInto)) found.push(key);
  }
  return found;
}
