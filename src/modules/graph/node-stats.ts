import { conceptKey, displayLabel } from "./concept-key";
import type { StoredExtraction } from "./stored-extraction";

/** A user's correction of one concept key (see concept-rules.ts). */
export interface ConceptRule {
  label: string | null;
  type: string | null;
  description: string | null;
  hidden: boolean | null;
  mergeInto: string | null;
}
export type ConceptRules = ReadonlyMap<string, ConceptRule>;

/**
 * What a node's label, aliases, type and description are chosen from, summed over the concepts
 * that resolve to it: each spelling's weight (mentions) and how many concepts name it, each type's
 * weight, each description's count. A note's share can be added or taken off exactly, so an
 * incremental build updates a node mentioned by thousands of notes without reading them.
 */
export interface NodeStats {
  labels: Map<string, [weight: number, names: number]>;
  types: Map<string, number>;
  descriptions: Map<string, number>;
}

export const emptyStats = (): NodeStats => ({ labels: new Map(), types: new Map(), descriptions: new Map() });

type Concept = StoredExtraction["concepts"][number];

/** Adds (sign 1) or takes off (sign -1) one extracted concept's share; entries that reach zero go. */
export function countConcept(stats: NodeStats, concept: Concept, sign: 1 | -1): void {
  const weight = Math.max(1, concept.mentions.length);
  bumpLabel(stats, displayLabel(concept.name), sign * weight, sign);
  for (const alias of concept.aliases) if (conceptKey(alias)) bumpLabel(stats, displayLabel(alias), 0, sign);
  bump(stats.types, concept.type || "concept", sign * weight);
  if (concept.description) bump(stats.descriptions, concept.description, sign);
}

function bumpLabel(stats: NodeStats, label: string, weight: number, names: number): void {
  const entry = stats.labels.get(label) ?? [0, 0];
  entry[0] += weight;
  entry[1] += names;
  if (entry[1] <= 0) stats.labels.delete(label);
  else stats.labels.set(label, entry);
}

function bump(counts: Map<string, number>, value: string, by: number): void {
  const next = (counts.get(value) ?? 0) + by;
  if (next <= 0) counts.delete(value);
  else counts.set(value, next);
}

export function serializeStats(stats: NodeStats): string {
  const sorted = <T>(map: Map<string, T>) => [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify({ l: sorted(stats.labels).map(([label, [w, n]]) => [label, w, n]), t: sorted(stats.types), d: sorted(stats.descriptions) });
}

export function parseStats(json: string): NodeStats {
  const raw = JSON.parse(json) as { l: [string, number, number][]; t: [string, number][]; d: [string, number][] };
  return {
    labels: new Map(raw.l.map(([label, w, n]) => [label, [w, n]])),
    types: new Map(raw.t),
    descriptions: new Map(raw.d),
  };
}

export interface NodeDisplay {
  label: string;
  type: string;
  description: string;
  aliases: string[];
  hidden: boolean;
}

/**
 * The node as shown: the user's rules first (the identity key's own, then the other keys' in
 * order), else the heaviest spelling and type and the longest description; ties go to the
 * smallest value, so the order notes come in never matters. Aliases are the other spellings.
 */
export function describeNode(stats: NodeStats, key: string, keys: readonly string[], rules: ConceptRules): NodeDisplay {
  const ruled = [key, ...[...keys].sort()].map((member) => rules.get(member)).filter((rule) => rule !== undefined);
  const pick = <K extends "label" | "type" | "description" | "hidden">(field: K) => ruled.find((rule) => rule[field] !== null)?.[field] ?? null;
  const label = pick("label") ?? mostCommon(new Map([...stats.labels].map(([name, [weight]]) => [name, weight])));
  return {
    label,
    type: pick("type") ?? mostCommon(stats.types),
    description: pick("description") ?? longest(stats.descriptions.keys()),
    aliases: [...stats.labels.keys()].filter((name) => name !== label).sort(),
    hidden: pick("hidden") ?? false,
  };
}

/** The most frequent value; a tie goes to the smallest. */
function mostCommon(counts: Map<string, number>): string {
  let best = "";
  let bestCount = -1;
  for (const [value, count] of counts) {
    if (count > bestCount || (count === bestCount && value < best)) [best, bestCount] = [value, count];
  }
  return best;
}

/** The longest; a tie goes to the smallest. */
function longest(values: Iterable<string>): string {
  let best = "";
  for (const value of values) if (value.length > best.length || (value.length === best.length && value < best)) best = value;
  return best;
}
