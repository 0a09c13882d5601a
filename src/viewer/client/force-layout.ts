// ForceAtlas2 for a fixed number of iterations, then noverlap: the layout worker runs it off the
// page's thread for the whole graph; an MCP App runs it at once for a neighbourhood of a few dozen.
// Both are deterministic, so the same graph from the same seeded start always lands in the same place.
import Graph from "graphology";
import forceAtlas2 from "graphology-layout-forceatlas2";
import noverlap from "graphology-layout-noverlap";
import type { LayoutRequest } from "./layout-protocol";

export function forceLayout({ positions, sizes, edges, iterations }: LayoutRequest): Float64Array {
  const graph = new Graph({ type: "undirected", multi: false });
  for (let index = 0; index < sizes.length; index++) {
    graph.addNode(index, { x: positions[2 * index], y: positions[2 * index + 1], size: sizes[index] });
  }
  for (let index = 0; index < edges.length; index += 3) {
    const source = edges[index]!;
    const target = edges[index + 1]!;
    if (source === target) continue;
    // Several relations between two concepts pull as one edge with their summed weight.
    graph.updateEdge(source, target, (attributes) => ({ weight: (attributes.weight ?? 0) + edges[index + 2]! }));
  }
  const settings = { ...forceAtlas2.inferSettings(graph), adjustSizes: false, edgeWeightInfluence: 0.5 };
  forceAtlas2.assign(graph, { iterations: iterations.forceAtlas2, settings, getEdgeWeight: "weight" });
  noverlap.assign(graph, { maxIterations: iterations.noverlap, settings: { ratio: 1.2, margin: 1 } });
  const result = new Float64Array(sizes.length * 2);
  graph.forEachNode((key, attributes) => {
    const index = Number(key);
    result[2 * index] = attributes.x;
    result[2 * index + 1] = attributes.y;
  });
  return result;
}
