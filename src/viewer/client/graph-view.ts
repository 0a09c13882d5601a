// The rendering: a graphology graph drawn by sigma (WebGL). Size by weight, colour by community,
// labels where sigma's label grid finds room (the heaviest per cell) plus the focused node and its
// neighbours; filters by type and community hide nodes without touching the data.
import Graph from "graphology";
import Sigma from "sigma";
import { drawDiscNodeHover } from "sigma/rendering";
import { animateNodes } from "sigma/utils";
import { EDGE_COLOUR, FADED_COLOUR, communityColour } from "./colours";
import type { Point } from "./layout";
import type { GraphEdge, GraphNode } from "./types";

export interface NodeAttributes {
  label: string;
  x: number;
  y: number;
  size: number;
  color: string;
  /** The concept's type ("person", ...); sigma reserves `type` for its node programs. */
  kind: string;
  community: number;
  weight: number;
}

/** The colours that depend on the background: labels, edges, and what a focus fades or lights. */
export interface GraphPalette {
  label: string;
  edge: string;
  faded: string;
  focusEdge: string;
}

/** On white (the page's graph view). */
export const LIGHT_PALETTE: GraphPalette = { label: "#000", edge: EDGE_COLOUR, faded: FADED_COLOUR, focusEdge: "#7d8691" };

export interface GraphViewEvents {
  select(id: number | null): void;
  expand(id: number): void;
}

/** True when this browser can give sigma a WebGL context (software rendering counts). */
export function webglAvailable(): boolean {
  try {
    const canvas = document.createElement("canvas");
    return Boolean(canvas.getContext("webgl2") ?? canvas.getContext("webgl"));
  } catch {
    return false;
  }
}

function emptyGraph() {
  return new Graph<NodeAttributes>({ type: "mixed", multi: true });
}

export class GraphView {
  private graph = emptyGraph();
  private readonly renderer: Sigma<NodeAttributes>;
  private selected: string | null = null;
  private hovered: string | null = null;
  private focusNeighbours = new Set<string>();
  /** The concepts a question named: lit, labelled and drawn above the rest. */
  private asked = new Set<string>();
  private kindFilter: string | null = null;
  private communityFilter: number | null = null;
  private maxWeight = 1;
  private stopAnimation: (() => void) | undefined;

  constructor(
    private readonly container: HTMLElement,
    private readonly events: GraphViewEvents,
    private palette: GraphPalette = LIGHT_PALETTE,
  ) {
    this.renderer = new Sigma<NodeAttributes>(this.graph, container, {
      zIndex: true,
      // The graph view is hidden (no width) while the notes app is shown; sigma waits instead of throwing.
      allowInvalidContainer: true,
      hideEdgesOnMove: true,
      defaultEdgeColor: palette.edge,
      labelColor: { color: palette.label },
      // The hover box is white whatever the background: its label is drawn dark on it.
      defaultDrawNodeHover: (context, data, settings) => drawDiscNodeHover(context, data, { ...settings, labelColor: { color: LIGHT_PALETTE.label } }),
      labelFont: "system-ui, sans-serif",
      labelSize: 13,
      labelDensity: 0.6,
      labelGridCellSize: 110,
      labelRenderedSizeThreshold: 7,
      minCameraRatio: 0.02,
      maxCameraRatio: 4,
      nodeReducer: (node, data) => this.reduceNode(node, data),
      edgeReducer: (edge, data) => this.reduceEdge(edge, data),
    });
    this.renderer.on("clickNode", ({ node }) => this.events.select(Number(node)));
    this.renderer.on("clickStage", () => this.events.select(null));
    this.renderer.on("doubleClickNode", (event) => {
      event.preventSigmaDefault();
      this.events.expand(Number(event.node));
    });
    this.renderer.on("enterNode", ({ node }) => this.setHovered(node));
    this.renderer.on("leaveNode", () => this.setHovered(null));
  }

  /** Replaces the drawing; resolves once sigma has drawn it. */
  show(nodes: GraphNode[], edges: GraphEdge[], positions: Map<number, Point>): Promise<void> {
    this.stopAnimation?.();
    this.selected = null;
    this.focusNeighbours.clear();
    this.maxWeight = nodes.reduce((heaviest, node) => Math.max(heaviest, node.weight), 1);
    // Filled before sigma sees it: one indexation instead of one per added node and edge.
    this.graph = emptyGraph();
    this.add(nodes, edges, positions);
    this.renderer.setGraph(this.graph);
    this.renderer.getCamera().setState({ x: 0.5, y: 0.5, ratio: 1, angle: 0 });
    return this.drawn();
  }

  /** Adds nodes and edges not drawn yet (an expanded neighbourhood); returns the ids that are new. */
  add(nodes: GraphNode[], edges: GraphEdge[], positions: Map<number, Point>): number[] {
    const added: number[] = [];
    for (const node of nodes) {
      const key = String(node.id);
      if (this.graph.hasNode(key)) continue;
      const point = positions.get(node.id)!;
      this.graph.addNode(key, {
        label: node.label,
        x: point.x,
        y: point.y,
        size: this.sizeOf(node),
        color: communityColour(node.community),
        kind: node.type,
        community: node.community,
        weight: node.weight,
      });
      added.push(node.id);
    }
    for (const edge of edges) {
      const key = String(edge.id);
      if (this.graph.hasEdge(key) || !this.graph.hasNode(String(edge.source)) || !this.graph.hasNode(String(edge.target))) continue;
      this.graph.addEdgeWithKey(key, String(edge.source), String(edge.target), { size: Math.min(4, 0.5 + Math.log2(1 + edge.weight) / 2), label: edge.label });
    }
    return added;
  }

  /** Node size from its weight on a log scale, so one huge concept does not dwarf the rest. */
  sizeOf(node: GraphNode): number {
    return 3 + 12 * (Math.log1p(node.weight) / Math.log1p(this.maxWeight));
  }

  /** Moves nodes to their laid-out places, gliding when asked; resolves once drawn there. */
  moveTo(positions: Map<number, Point>, glide: boolean): Promise<void> {
    this.stopAnimation?.();
    const targets: Record<string, { x: number; y: number }> = {};
    for (const [id, { x, y }] of positions) if (this.graph.hasNode(String(id))) targets[String(id)] = { x, y };
    if (!glide) {
      for (const [key, point] of Object.entries(targets)) this.graph.mergeNodeAttributes(key, point);
      return this.drawn();
    }
    return new Promise((resolve) => {
      this.stopAnimation = animateNodes(this.graph, targets, { duration: 600, easing: "quadraticInOut" }, () => void this.drawn().then(resolve));
    });
  }

  select(id: number | null): void {
    this.selected = id === null ? null : String(id);
    this.refocus();
  }

  /** Lights up the concepts a question named (none: back to normal); `data-asked` lists them for tests and styles. */
  highlight(ids: number[]): void {
    this.asked = new Set(ids.map(String).filter((key) => this.graph.hasNode(key)));
    this.container.dataset.asked = [...this.asked].join(",");
    this.refocus();
  }

  /** Flies the camera to a node. */
  focus(id: number): void {
    const display = this.renderer.getNodeDisplayData(String(id));
    if (!display) return;
    const camera = this.renderer.getCamera();
    void camera.animate({ x: display.x, y: display.y, ratio: Math.min(camera.ratio, 0.35) }, { duration: 500 });
  }

  filterKind(kind: string | null): void {
    this.kindFilter = kind;
    this.renderer.refresh();
  }

  isolateCommunity(community: number | null): void {
    this.communityFilter = community;
    this.renderer.refresh();
  }

  /** Redraws in other colours (the background changed from light to dark, or back). */
  setPalette(palette: GraphPalette): void {
    this.palette = palette;
    this.renderer.setSetting("defaultEdgeColor", palette.edge);
    this.renderer.setSetting("labelColor", { color: palette.label });
    this.renderer.refresh();
  }

  /** Its container was hidden and is shown again: measure it and draw. */
  wake(): void {
    this.renderer.resize();
    this.renderer.refresh();
  }

  kill(): void {
    this.stopAnimation?.();
    this.renderer.kill();
  }

  /** Resolves after sigma's next frame. */
  private drawn(): Promise<void> {
    return new Promise((resolve) => {
      this.renderer.once("afterRender", () => resolve());
      this.renderer.scheduleRefresh();
    });
  }

  private setHovered(node: string | null): void {
    this.hovered = node;
    this.refocus();
  }

  private refocus(): void {
    this.focusNeighbours.clear();
    for (const key of [this.selected, this.hovered]) {
      if (key && this.graph.hasNode(key)) {
        this.focusNeighbours.add(key);
        for (const neighbour of this.graph.neighbors(key)) this.focusNeighbours.add(neighbour);
      }
    }
    for (const key of this.asked) this.focusNeighbours.add(key);
    this.renderer.refresh({ skipIndexation: true });
  }

  private filteredOut(data: NodeAttributes): boolean {
    return (this.kindFilter !== null && data.kind !== this.kindFilter) || (this.communityFilter !== null && data.community !== this.communityFilter);
  }

  private reduceNode(node: string, data: NodeAttributes) {
    if (this.filteredOut(data)) return { ...data, hidden: true };
    if (this.focusNeighbours.size === 0) return data;
    if (!this.focusNeighbours.has(node)) return { ...data, color: this.palette.faded, label: "", zIndex: 0 };
    const focused = node === this.selected || node === this.hovered || this.asked.has(node);
    return { ...data, forceLabel: true, highlighted: focused, zIndex: focused ? 2 : 1 };
  }

  private reduceEdge(edge: string, data: Record<string, unknown>) {
    const [source, target] = this.graph.extremities(edge);
    const sourceData = this.graph.getNodeAttributes(source);
    const targetData = this.graph.getNodeAttributes(target);
    if (this.filteredOut(sourceData) || this.filteredOut(targetData)) return { ...data, hidden: true };
    if (this.focusNeighbours.size === 0) return data;
    const touchesFocus = [this.selected, this.hovered].some((key) => key === source || key === target);
    return touchesFocus ? { ...data, color: this.palette.focusEdge, zIndex: 1 } : { ...data, hidden: true };
  }
}
