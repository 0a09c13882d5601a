// What the graph app draws and where: a concept and its heaviest neighbours (or the concepts a search
// found), placed by the page's own layout (force-layout.ts, run at once: a few dozen nodes take
// milliseconds), in colours for the background the host gives.
import { forceLayout } from "../client/force-layout";
import { LIGHT_PALETTE, type GraphPalette } from "../client/graph-view";
import { around, layoutRequest, placesOf, seededPositions, type Point } from "../client/layout";
import type { GraphEdge, GraphNode, NodeDetail } from "../client/types";
import { isDark } from "./app-shell";

/** Neighbours drawn around a concept: the heaviest, as the answer orders them; the list beside names them all. */
export const DRAWN_NEIGHBOURS = 60;

export interface Drawing {
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Neighbours left out of the drawing. */
  left: number;
}

export function neighbourhood(detail: NodeDetail): Drawing {
  const nodes = [detail.node, ...detail.neighbours.slice(0, DRAWN_NEIGHBOURS)];
  const drawn = new Set(nodes.map((node) => node.id));
  const edges = detail.edges.filter((edge) => drawn.has(edge.source) && drawn.has(edge.target));
  return { nodes, edges, left: Math.max(0, detail.neighbours.length - DRAWN_NEIGHBOURS) };
}

/** Where nodes start: the concept in the middle with its neighbours around it, or (no centre) grouped by community. */
export function startPlaces(nodes: GraphNode[], centre: number | null): Map<number, Point> {
  if (centre === null) return seededPositions(nodes);
  const middle = { x: 0, y: 0 };
  return new Map(nodes.map((node) => [node.id, node.id === centre ? middle : around(middle, node.id, 20)]));
}

/** Where the layout settles them. */
export function settledPlaces(nodes: GraphNode[], edges: GraphEdge[], start: Map<number, Point>, sizeOf: (node: GraphNode) => number): Map<number, Point> {
  return placesOf(nodes, forceLayout(layoutRequest(nodes, edges, start, sizeOf)));
}

/** Labels in the host's text colour; edges and faded nodes that stay quiet on a dark background as on a light one. */
export function graphPalette(): GraphPalette {
  const label = getComputedStyle(document.body).color || LIGHT_PALETTE.label;
  if (!isDark()) return { ...LIGHT_PALETTE, label };
  return { label, edge: "#4b535d", faded: "#353a41", focusEdge: "#9aa4af" };
}
