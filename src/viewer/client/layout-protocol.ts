// Messages between the page and its layout worker: flat arrays, so 5,000 nodes cross cheaply.

export interface LayoutRequest {
  /** Start positions, one pair per node (x0, y0, x1, y1, ...). */
  positions: Float64Array;
  sizes: Float64Array;
  /** Node indexes and weight per edge (source, target, weight, ...). */
  edges: Float64Array;
  iterations: { forceAtlas2: number; noverlap: number };
}

export interface LayoutAnswer {
  positions: Float64Array;
}
