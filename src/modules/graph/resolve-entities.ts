import { conceptKey } from "./concept-key";
import { type ConceptRules, countConcept, describeNode, emptyStats, type NodeStats } from "./node-stats";
import type { StoredExtraction } from "./stored-extraction";

export interface ResolvedNode {
  /** The group's identity: its smallest key not merged away by a rule. */
  key: string;
  /** Every concept key the node stands for. */
  keys: string[];
  hidden: boolean;
  label: string;
  type: string;
  description: string;
  aliases: string[];
  stats: NodeStats;
  mentions: { noteId: number; start: number; end: number; passage: string }[];
  noteIds: number[];
}

export interface ResolvedEdge {
  source: number;
  target: number;
  label: string;
  noteIds: number[];
  weight: number;
}

/**
 * Entity resolution across all of a user's note extractions: names that share a concept key
 * (NFKC, case-folded, trimmed), or are reported as aliases of each other, become one node.
 * Nodes and edges are indices into the returned `nodes`. The user's rules merge keys and override
 * labels, types, descriptions and visibility. A relation counts only between concepts of its own
 * note, and ties are broken by value, never by note order: the result for a group depends only on
 * the notes that mention it, which lets an incremental build recompute just the groups it touches.
 */
export function resolveEntities(
  extractions: { noteId: number; extraction: StoredExtraction }[],
  rules: ConceptRules = new Map(),
): {
  nodes: ResolvedNode[];
  edges: ResolvedEdge[];
} {
  const parent = new Map<string, string>();
  const find = (key: string): string => {
    let root = key;
    while (parent.get(root) !== root) root = parent.get(root)!;
    parent.set(key, root);
    return root;
  };
  const add = (key: string) => {
    if (!parent.has(key)) parent.set(key, key);
  };
  const union = (a: string, b: string) => {
    const [ra, rb] = [find(a), find(b)];
    // The smaller key wins, so the outcome does not depend on note order.
    if (ra !== rb) ra < rb ? parent.set(rb, ra) : parent.set(ra, rb);
  };

  for (const { extraction } of extractions) {
    for (const concept of extraction.concepts) {
      const key = conceptKey(concept.name);
      if (!key) continue;
      add(key);
      for (const alias of concept.aliases) {
        const aliasKey = conceptKey(alias);
        if (!aliasKey) continue;
        add(aliasKey);
        union(key, aliasKey);
      }
    }
  }
  for (const [key, rule] of rules) if (rule.mergeInto && parent.has(key) && parent.has(rule.mergeInto)) union(key, rule.mergeInto);
  const members = new Map<string, string[]>();
  for (const key of parent.keys()) {
    const root = find(key);
    const list = members.get(root);
    if (list) list.push(key);
    else members.set(root, [key]);
  }

  interface Group {
    stats: NodeStats;
    mentions: ResolvedNode["mentions"];
    places: Set<string>;
    notes: Set<number>;
  }
  const groups = new Map<string, Group>();
  const group = (key: string) => {
    const root = find(key);
    let entry = groups.get(root);
    if (!entry) groups.set(root, (entry = { stats: emptyStats(), mentions: [], places: new Set(), notes: new Set() }));
    return entry;
  };

  for (const { noteId, extraction } of extractions) {
    for (const concept of extraction.concepts) {
      const key = conceptKey(concept.name);
      if (!key) continue;
      const entry = group(key);
      countConcept(entry.stats, concept, 1);
      for (const mention of concept.mentions) {
        // One mention per place (graph_mentions' key), so a node's weight is its count of mention rows.
        const at = `${noteId}:${mention.start}`;
        if (entry.places.has(at)) continue;
        entry.places.add(at);
        entry.mentions.push({ noteId, ...mention });
      }
      entry.notes.add(noteId);
    }
  }

  const index = new Map<string, number>();
  const nodes: ResolvedNode[] = [];
  for (const [root, entry] of [...groups].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const keys = members.get(root)!.sort();
    const kept = keys.filter((key) => {
      const into = rules.get(key)?.mergeInto;
      return !into || !keys.includes(into);
    });
    const key = kept[0] ?? keys[0]!;
    index.set(root, nodes.length);
    nodes.push({
      key,
      keys,
      ...describeNode(entry.stats, key, keys, rules),
      stats: entry.stats,
      mentions: entry.mentions,
      noteIds: [...entry.notes].sort((a, b) => a - b),
    });
  }

  const edges = new Map<string, ResolvedEdge>();
  for (const { noteId, extraction } of extractions) {
    const own = new Set<string>();
    for (const concept of extraction.concepts) for (const name of [concept.name, ...concept.aliases]) own.add(conceptKey(name));
    for (const relation of extraction.relations) {
      const [sourceKey, targetKey] = [conceptKey(relation.source), conceptKey(relation.target)];
      if (!sourceKey || !targetKey || !own.has(sourceKey) || !own.has(targetKey)) continue;
      const [source, target] = [index.get(find(sourceKey))!, index.get(find(targetKey))!];
      if (source === target) continue;
      const label = relation.label.trim().toLowerCase() || "related to";
      const id = `${source}|${target}|${label}`;
      const edge = edges.get(id) ?? { source, target, label, noteIds: [], weight: 0 };
      if (!edge.noteIds.includes(noteId)) edge.noteIds.push(noteId);
      edges.set(id, edge);
    }
  }
  // An edge weighs one per note that states it, so deleting a note can take its share off exactly.
  for (const edge of edges.values()) {
    edge.noteIds.sort((a, b) => a - b);
    edge.weight = edge.noteIds.length;
  }
  return { nodes, edges: [...edges.values()] };
}
