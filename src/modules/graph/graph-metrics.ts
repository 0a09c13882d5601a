import Graph from "graphology";
import louvain from "graphology-communities-louvain";
import { seededRandom } from "./seeded-random";

export interface MetricsEdge {
  sourceId: number;
  targetId: number;
  weight: number;
}

export interface NodeMetrics {
  /** Distinct neighbours, either direction, self excluded. */
  degree: number;
  /** 0 is the largest community; isolated nodes are communities of one. */
  community: number;
}

// Fixed so that rebuilding the same graph gives the same communities (and the same colours).
const LOUVAIN_SEED = 0x5eed;

/**
 * Degree and Louvain community of every node, treating the graph as undirected: parallel edges
 * between one pair (either direction, any label) are one edge whose weight is their sum;
 * self-loops and edges to unknown nodes are ignored; a weight that is not a positive number counts
 * as 1. Deterministic whatever the input order: nodes and pairs enter the graph sorted, and
 * Louvain draws from a seeded generator. Community ids are renumbered 0..k-1 by size (largest
 * first), ties by smallest node id.
 */
export function computeGraphMetrics(nodeIds: readonly number[], edges: readonly MetricsEdge[]): Map<number, NodeMetrics> {
  const ids = [...new Set(nodeIds)].sort((a, b) => a - b);
  const known = new Set(ids);
  const pairWeights = new Map<string, { low: number; high: number; weight: number }>();
  for (const edge of edges) {
    if (edge.sourceId === edge.targetId || !known.has(edge.sourceId) || !known.has(edge.targetId)) continue;
    const low = Math.min(edge.sourceId, edge.targetId);
    const high = Math.max(edge.sourceId, edge.targetId);
    const weight = Number.isFinite(edge.weight) && edge.weight > 0 ? edge.weight : 1;
    const key = `${low},${high}`;
    const pair = pairWeights.get(key);
    if (pair) pair.weight += weight;
    else pairWeights.set(key, { low, high, weight });
  }

  const graph = new Graph<Record<string, never>, { weight: number }>({ type: "undirected", multi: false, allowSelfLoops: false });
  for (const id of ids) graph.addNode(String(id));
  const pairs = [...pairWeights.values()].sort((a, b) => a.low - b.low || a.high - b.high);
  for (const pair of pairs) graph.addEdge(String(pair.low), String(pair.high), { weight: pair.weight });

  const rawCommunities = louvain(graph, { getEdgeWeight: "weight", rng: seededRandom(LOUVAIN_SEED) });
  const community = renumberCommunities(ids, (id) => rawCommunities[String(id)] ?? -1 - id);

  const metrics = new Map<number, NodeMetrics>();
  for (const id of ids) metrics.set(id, { degree: graph.degree(String(id)), community: community.get(id)! });
  return metrics;
}

/** Largest community first, ties by smallest member id; `ids` must be ascending. */
function renumberCommunities(ids: readonly number[], rawOf: (id: number) => number): Map<number, number> {
  const members = new Map<number, { size: number; smallest: number }>();
  for (const id of ids) {
    const raw = rawOf(id);
    const group = members.get(raw);
    if (group) group.size++;
    else members.set(raw, { size: 1, smallest: id });
  }
  const order = [...members.entries()].sort(([, a], [, b]) => b.size - a.size || a.smallest - b.smallest);
  const renumbered = new Map(order.map(([raw], index) => [raw, index]));
  return new Map(ids.map((id) => [id, renumbered.get(rawOf(id))!]));
}

