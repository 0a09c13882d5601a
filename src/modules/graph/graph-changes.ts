import { eq, inArray } from "drizzle-orm";
import { graphNoteRemovals } from "../../db/schema";
import type { GraphWriter } from "./remove-note-from-graph";

/** At most this many entries in each list of a build's diff. */
export const DIFF_LIMIT = 200;

export interface GraphDiff {
  added: { id: number; label: string }[];
  removed: { label: string }[];
  merged: { into: { id: number; label: string }; labels: string[] }[];
}

export interface GraphChanges {
  nodesAdded: number;
  nodesRemoved: number;
  edgesAdded: number;
  edgesRemoved: number;
  nodesMerged: number;
  diff: GraphDiff;
}

export const noChanges = (): GraphChanges => ({
  nodesAdded: 0,
  nodesRemoved: 0,
  edgesAdded: 0,
  edgesRemoved: 0,
  nodesMerged: 0,
  diff: { added: [], removed: [], merged: [] },
});

/**
 * What a rewrite of part of the graph did, by concept: a node whose key is gone but now belongs to
 * another node was merged into it, one whose key is nowhere was removed, one with a new key added.
 * Edges compare by their ends' concepts and label.
 */
export function compareGraphs(
  before: { nodes: { key: string; label: string }[]; edges: Set<string> },
  after: { nodes: { id: number; key: string; label: string; keys: string[] }[]; edges: Set<string> },
): GraphChanges {
  const changes = noChanges();
  const oldKeys = new Set(before.nodes.map((node) => node.key));
  const newKeys = new Set(after.nodes.map((node) => node.key));
  const owner = new Map<string, (typeof after.nodes)[number]>();
  for (const node of after.nodes) for (const key of node.keys) owner.set(key, node);
  for (const node of after.nodes) {
    if (oldKeys.has(node.key)) continue;
    changes.nodesAdded++;
    changes.diff.added.push({ id: node.id, label: node.label });
  }
  const merged = new Map<number, GraphDiff["merged"][number]>();
  for (const node of before.nodes) {
    if (newKeys.has(node.key)) continue;
    const into = owner.get(node.key);
    if (!into) {
      changes.nodesRemoved++;
      changes.diff.removed.push({ label: node.label });
      continue;
    }
    changes.nodesMerged++;
    const entry = merged.get(into.id) ?? { into: { id: into.id, label: into.label }, labels: [] };
    entry.labels.push(node.label);
    merged.set(into.id, entry);
  }
  changes.diff.merged = [...merged.values()];
  for (const edge of after.edges) if (!before.edges.has(edge)) changes.edgesAdded++;
  for (const edge of before.edges) if (!after.edges.has(edge)) changes.edgesRemoved++;
  return changes;
}

/**
 * Takes in the note deletions since the last build (the deletion already changed the graph; the
 * build reports it) and, for a build (`forget`), forgets them. Returns the concept keys the deleted
 * notes touched.
 */
export async function consumeRemovals(tx: GraphWriter, userId: number, changes: GraphChanges, forget = true): Promise<{ keys: string[]; notes: number }> {
  const rows = await tx.select().from(graphNoteRemovals).where(eq(graphNoteRemovals.userId, userId));
  const keys: string[] = [];
  for (const row of rows) {
    keys.push(...(JSON.parse(row.keys) as string[]));
    const labels = JSON.parse(row.removedLabels) as string[];
    changes.nodesRemoved += labels.length;
    changes.edgesRemoved += row.edgesRemoved;
    changes.diff.removed.push(...labels.map((label) => ({ label })));
  }
  if (forget && rows.length > 0) await tx.delete(graphNoteRemovals).where(inArray(graphNoteRemovals.id, rows.map((row) => row.id)));
  return { keys, notes: rows.length };
}

/** The diff as stored: each list cut to DIFF_LIMIT entries. */
export function boundedDiff(diff: GraphDiff): GraphDiff {
  return { added: diff.added.slice(0, DIFF_LIMIT), removed: diff.removed.slice(0, DIFF_LIMIT), merged: diff.merged.slice(0, DIFF_LIMIT) };
}
