// Where nodes go. A graph version is laid out once: seeded start positions (the same for the same
// node id), a fixed number of ForceAtlas2 iterations in a worker, and the result kept in
// localStorage per user and build, so a reload draws the same picture at once instead of moving.
import { seededRandom } from "../../modules/graph/seeded-random";
import type { LayoutAnswer, LayoutRequest } from "./layout-protocol";
import type { GraphEdge, GraphNode } from "./types";

export interface Point {
  x: number;
  y: number;
}

/** Communities on a golden-angle spiral, each node at a seeded place around its community's centre. */
export function seededPositions(nodes: GraphNode[]): Map<number, Point> {
  const members = new Map<number, number>();
  for (const node of nodes) members.set(node.community, (members.get(node.community) ?? 0) + 1);
  const centres = new Map<number, Point>();
  [...members.keys()]
    .sort((a, b) => a - b)
    .forEach((community, index) => {
      const radius = 40 * Math.sqrt(index);
      centres.set(community, { x: radius * Math.cos(index * 2.39996), y: radius * Math.sin(index * 2.39996) });
    });
  const positions = new Map<number, Point>();
  for (const node of nodes) {
    const centre = centres.get(node.community)!;
    positions.set(node.id, around(centre, node.id, 6 * Math.sqrt(members.get(node.community)!)));
  }
  return positions;
}

/** A seeded place within `spread` of `centre`, the same for the same id. */
export function around(centre: Point, id: number, spread: number): Point {
  const random = seededRandom(id);
  const distance = spread * Math.sqrt(random());
  const angle = 2 * Math.PI * random();
  return { x: centre.x + distance * Math.cos(angle), y: centre.y + distance * Math.sin(angle) };
}

/**
 * Fewer iterations for big graphs, so a layout takes about a second on a small machine: ForceAtlas2
 * with Barnes-Hut costs about n log n per iteration, and the seeded start is already grouped by community.
 */
export function iterationsFor(nodeCount: number): { forceAtlas2: number; noverlap: number } {
  if (nodeCount <= 1000) return { forceAtlas2: 150, noverlap: 30 };
  if (nodeCount <= 2500) return { forceAtlas2: 60, noverlap: 10 };
  return { forceAtlas2: 30, noverlap: 5 };
}

/** A layout that a newer one replaced before it finished. */
export class LayoutSuperseded extends Error {}

let worker: Worker | undefined;
let running: { reject(error: Error): void } | undefined;

/** The nodes, their start places and the edges among them, as the flat arrays the layout takes. */
export function layoutRequest(nodes: GraphNode[], edges: GraphEdge[], start: Map<number, Point>, sizeOf: (node: GraphNode) => number): LayoutRequest {
  const index = new Map(nodes.map((node, position) => [node.id, position]));
  const positions = new Float64Array(nodes.length * 2);
  nodes.forEach((node, position) => {
    const point = start.get(node.id)!;
    positions[2 * position] = point.x;
    positions[2 * position + 1] = point.y;
  });
  const kept = edges.filter((edge) => index.has(edge.source) && index.has(edge.target));
  const edgeArray = new Float64Array(kept.length * 3);
  kept.forEach((edge, position) => edgeArray.set([index.get(edge.source)!, index.get(edge.target)!, edge.weight], 3 * position));
  return { positions, sizes: Float64Array.from(nodes, sizeOf), edges: edgeArray, iterations: iterationsFor(nodes.length) };
}

/** The layout's answer as places by node id, rounded as the cache keeps them (a reload draws the same). */
export function placesOf(nodes: GraphNode[], positions: Float64Array): Map<number, Point> {
  const result = new Map<number, Point>();
  nodes.forEach((node, position) => result.set(node.id, { x: round(positions[2 * position]!), y: round(positions[2 * position + 1]!) }));
  return result;
}

/** Runs the layout in the worker; a new call stops the one still running (it rejects with LayoutSuperseded). */
export function computeLayout(nodes: GraphNode[], edges: GraphEdge[], start: Map<number, Point>, sizeOf: (node: GraphNode) => number): Promise<Map<number, Point>> {
  const message = layoutRequest(nodes, edges, start, sizeOf);

  if (running) {
    worker?.terminate();
    worker = undefined;
    running.reject(new LayoutSuperseded("a newer layout replaced this one"));
  }
  return new Promise<Map<number, Point>>((resolve, reject) => {
    const job = { reject };
    running = job;
    worker ??= new Worker("/graph/assets/layout-worker.js", { type: "module", name: "graph layout" });
    worker.onmessage = (event: MessageEvent<LayoutAnswer>) => {
      running = undefined;
      resolve(placesOf(nodes, event.data.positions));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      running = undefined;
      reject(new Error(`the layout worker failed: ${event.message}`));
    };
    worker.postMessage(message, [message.positions.buffer, message.edges.buffer, message.sizes.buffer]);
  });
}

const CACHE_PREFIX = "rhizome.layout.v1";

/** The cached layout of one view of one build, if it covers exactly these nodes. */
export function cachedLayout(key: LayoutKey, nodes: GraphNode[]): Map<number, Point> | undefined {
  try {
    const stored = localStorage.getItem(cacheKey(key));
    if (!stored) return undefined;
    const { ids, xy } = JSON.parse(stored) as { ids: number[]; xy: number[] };
    if (ids.length !== nodes.length || nodes.some((node, position) => ids[position] !== node.id)) return undefined;
    return new Map(ids.map((id, position) => [id, { x: xy[2 * position]!, y: xy[2 * position + 1]! }]));
  } catch {
    return undefined;
  }
}

export interface LayoutKey {
  userId: number;
  buildId: number;
  /** Which slice of the graph: "limit=500", for example. */
  view: string;
}

/** Keeps a layout for the user's current build and drops those of older builds. */
export function saveLayout(key: LayoutKey, nodes: GraphNode[], positions: Map<number, Point>): void {
  const userPrefix = `${CACHE_PREFIX}:${key.userId}:`;
  try {
    for (let index = localStorage.length - 1; index >= 0; index--) {
      const name = localStorage.key(index);
      if (name?.startsWith(userPrefix) && !name.startsWith(`${userPrefix}${key.buildId}:`)) localStorage.removeItem(name);
    }
    const xy = nodes.flatMap((node) => {
      const point = positions.get(node.id)!;
      return [point.x, point.y];
    });
    localStorage.setItem(cacheKey(key), JSON.stringify({ ids: nodes.map((node) => node.id), xy }));
  } catch {
    // A full or disabled localStorage only costs a recomputed layout next time.
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function cacheKey(key: LayoutKey): string {
  return `${CACHE_PREFIX}:${key.userId}:${key.buildId}:${key.view}`;
}
