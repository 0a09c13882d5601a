import { describe, expect, test } from "bun:test";
import { computeGraphMetrics, type MetricsEdge } from "../../../src/modules/graph/graph-metrics";

const edge = (sourceId: number, targetId: number, weight = 1): MetricsEdge => ({ sourceId, targetId, weight });

/** Every pair within `ids` connected. */
function clique(ids: number[]): MetricsEdge[] {
  return ids.flatMap((a, i) => ids.slice(i + 1).map((b) => edge(a, b)));
}

/** A deterministic generator for test graphs (not the one under test). */
function lcg(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 16807) % 2147483647) / 2147483647;
}

describe("computeGraphMetrics", () => {
  test("two cliques joined by one edge are two communities, the larger numbered 0", () => {
    const small = [1, 2, 3, 4];
    const large = [10, 11, 12, 13, 14];
    const metrics = computeGraphMetrics([...small, ...large], [...clique(small), ...clique(large), edge(4, 10)]);
    for (const id of large) expect(metrics.get(id)?.community).toBe(0);
    for (const id of small) expect(metrics.get(id)?.community).toBe(1);
    expect(metrics.get(1)?.degree).toBe(3);
    expect(metrics.get(4)?.degree).toBe(4);
    expect(metrics.get(10)?.degree).toBe(5);
  });

  test("equal-sized communities are numbered by their smallest node id", () => {
    const metrics = computeGraphMetrics([7, 8, 9, 1, 2, 3], [...clique([7, 8, 9]), ...clique([1, 2, 3])]);
    expect([1, 2, 3].map((id) => metrics.get(id)?.community)).toEqual([0, 0, 0]);
    expect([7, 8, 9].map((id) => metrics.get(id)?.community)).toEqual([1, 1, 1]);
  });

  test("the same graph in any order gives the same result", () => {
    const random = lcg(42);
    const ids = Array.from({ length: 300 }, (_, i) => i + 1);
    const edges = Array.from({ length: 900 }, () => edge(1 + Math.floor(random() * 300), 1 + Math.floor(random() * 300), 1 + Math.floor(random() * 3)));
    const first = computeGraphMetrics(ids, edges);
    const again = computeGraphMetrics([...ids].reverse(), [...edges].reverse());
    expect([...again.entries()].sort(([a], [b]) => a - b)).toEqual([...first.entries()].sort(([a], [b]) => a - b));
    const communities = new Set([...first.values()].map((metric) => metric.community));
    expect(Math.min(...communities)).toBe(0);
    expect(Math.max(...communities)).toBe(communities.size - 1);
  });

  test("an empty graph has no metrics", () => {
    expect(computeGraphMetrics([], []).size).toBe(0);
  });

  test("isolated nodes are communities of one, after the connected ones", () => {
    const metrics = computeGraphMetrics([5, 1, 2, 3], [edge(1, 2)]);
    expect(metrics.get(1)).toEqual({ degree: 1, community: 0 });
    expect(metrics.get(2)).toEqual({ degree: 1, community: 0 });
    expect(metrics.get(3)).toEqual({ degree: 0, community: 1 });
    expect(metrics.get(5)).toEqual({ degree: 0, community: 2 });
  });

  test("self-loops add no degree and no link", () => {
    const metrics = computeGraphMetrics([1, 2], [edge(1, 1, 5), edge(2, 2)]);
    expect(metrics.get(1)).toEqual({ degree: 0, community: 0 });
    expect(metrics.get(2)).toEqual({ degree: 0, community: 1 });
  });

  test("parallel and reversed edges count one neighbour, and their weights add up", () => {
    // 2 is tied to 1 by three light edges (3 in all) and to 3 by one edge of 2: it joins 1.
    const metrics = computeGraphMetrics([1, 2, 3, 4], [edge(1, 2), edge(2, 1), edge(1, 2), edge(2, 3, 2), edge(3, 4, 10)]);
    expect(metrics.get(2)?.degree).toBe(2);
    expect(metrics.get(1)?.degree).toBe(1);
    expect(metrics.get(1)?.community).toBe(metrics.get(2)?.community!);
    expect(metrics.get(3)?.community).toBe(metrics.get(4)?.community!);
    expect(metrics.get(1)?.community).not.toBe(metrics.get(3)?.community!);
  });

  test("edges to nodes outside the list are ignored", () => {
    const metrics = computeGraphMetrics([1, 2], [edge(1, 2), edge(1, 99)]);
    expect(metrics.get(1)?.degree).toBe(1);
    expect(metrics.has(99)).toBe(false);
  });

  // Its speed is measured by scripts/bench/graph-read.ts (computeGraphMetrics at 5,000/20,000), not here.
  test("5,000 nodes and 20,000 edges: every node is measured and the 50 planted clusters are found", () => {
    const random = lcg(7);
    const ids = Array.from({ length: 5000 }, (_, i) => i + 1);
    const cluster = (id: number) => Math.floor((id - 1) / 100);
    // 50 planted clusters: most edges inside one, the rest anywhere.
    const edges = Array.from({ length: 20_000 }, () => {
      const source = 1 + Math.floor(random() * 5000);
      const inside = random() < 0.8;
      const target = inside ? Math.min(5000, cluster(source) * 100 + 1 + Math.floor(random() * 100)) : 1 + Math.floor(random() * 5000);
      return edge(source, target, 1 + Math.floor(random() * 3));
    });
    const metrics = computeGraphMetrics(ids, edges);
    expect(metrics.size).toBe(5000);
    const neighbours = new Map(ids.map((id) => [id, new Set<number>()]));
    for (const { sourceId, targetId } of edges) {
      if (sourceId === targetId) continue;
      neighbours.get(sourceId)!.add(targetId);
      neighbours.get(targetId)!.add(sourceId);
    }
    for (const id of ids) expect(metrics.get(id)!.degree).toBe(neighbours.get(id)!.size);
    // Each planted cluster lies mostly in one community, and hardly any two share it (Louvain may merge a pair).
    const main = Array.from({ length: 50 }, (_, index) => {
      const counts = new Map<number, number>();
      for (let id = index * 100 + 1; id <= index * 100 + 100; id++) counts.set(metrics.get(id)!.community, (counts.get(metrics.get(id)!.community) ?? 0) + 1);
      return [...counts].sort((a, b) => b[1] - a[1])[0]!;
    });
    for (const [, members] of main) expect(members).toBeGreaterThanOrEqual(80);
    expect(new Set(main.map(([community]) => community)).size).toBeGreaterThanOrEqual(45);
  });
});
