// The community legend (a button per coloured community: pressing it shows only that community)
// and the type filter.
import { communityColour, COMMUNITY_COLOURS } from "./colours";
import { make } from "./dom";
import type { GraphNode } from "./types";

export function renderLegend(list: HTMLUListElement, nodes: GraphNode[], isolate: (community: number | null) => void): void {
  const communities = new Map<number, GraphNode[]>();
  for (const node of nodes) communities.set(node.community, [...(communities.get(node.community) ?? []), node]);
  const coloured = [...communities.keys()].filter((community) => community < COMMUNITY_COLOURS.length).sort((a, b) => a - b);
  const buttons: HTMLButtonElement[] = [];
  const items = coloured.map((community) => {
    const members = communities.get(community)!;
    const heaviest = members.reduce((best, node) => (node.weight > best.weight ? node : best));
    const swatch = make("span", undefined, "swatch");
    swatch.style.background = communityColour(community);
    const toggle = make("button");
    toggle.type = "button";
    toggle.setAttribute("aria-pressed", "false");
    toggle.append(swatch, `${heaviest.label} & co. (${members.length})`);
    toggle.addEventListener("click", () => {
      const pressing = toggle.getAttribute("aria-pressed") !== "true";
      for (const other of buttons) other.setAttribute("aria-pressed", "false");
      toggle.setAttribute("aria-pressed", String(pressing));
      isolate(pressing ? community : null);
    });
    buttons.push(toggle);
    const item = make("li");
    item.append(toggle);
    return item;
  });
  if (communities.size > coloured.length) items.push(make("li", `grey: ${communities.size - coloured.length} smaller communities`, "hint"));
  list.replaceChildren(...items);
}

/** Fills the type filter with the loaded types, most common first, keeping the current choice if it remains. */
export function renderTypeOptions(select: HTMLSelectElement, nodes: GraphNode[]): void {
  const counts = new Map<string, number>();
  for (const node of nodes) counts.set(node.type, (counts.get(node.type) ?? 0) + 1);
  const chosen = select.value;
  const options = [make("option", "All types")];
  options[0]!.value = "";
  for (const [type, total] of [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) {
    const option = make("option", `${type} (${total})`);
    option.value = type;
    options.push(option);
  }
  select.replaceChildren(...options);
  select.value = counts.has(chosen) ? chosen : "";
}
