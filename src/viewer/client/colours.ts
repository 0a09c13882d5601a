// Community colours: a palette that stays readable on white; communities past it share one grey.
export const COMMUNITY_COLOURS = [
  "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
  "#b07aa1", "#ff9da7", "#9c755f", "#2f6f8f", "#8cd17d", "#d37295",
];
export const OTHER_COLOUR = "#a0a4aa";
export const FADED_COLOUR = "#e4e7eb";
export const EDGE_COLOUR = "#cfd4da";

export function communityColour(community: number): string {
  return COMMUNITY_COLOURS[community] ?? OTHER_COLOUR;
}
