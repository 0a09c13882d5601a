// The `Concept details` region: label, type, description, aliases, neighbours (buttons), and every
// note that mentions the concept with its title (which opens the note) and the passage, rendered.
import { button, make } from "./dom";
import { renderPassage } from "./markdown";
import type { NodeDetail } from "./types";

export interface DetailActions {
  pick(id: number): void;
  /** Adds the concept's neighbourhood to the drawing; without it, no `Expand neighbourhood` button. */
  expand?(id: number): void;
  openNote(id: number): void;
}

const count = new Intl.NumberFormat("en");
/** Neighbours listed at first: the heaviest, as the API orders them; a button shows the rest. */
const SHOWN_NEIGHBOURS = 30;

export function renderDetails(region: HTMLElement, detail: NodeDetail, actions: DetailActions): void {
  const { node } = detail;
  const parts: Node[] = [
    make("h2", node.label),
    make("p", `${node.type} · ${count.format(node.weight)} mentions · ${count.format(node.degree)} related concepts`, "meta"),
  ];
  if (node.description) parts.push(make("p", node.description));
  if (node.aliases?.length) parts.push(make("p", `Also called: ${node.aliases.join(", ")}`, "meta"));
  const { expand } = actions;
  if (expand) parts.push(button("Expand neighbourhood", () => expand(node.id), "quiet"));

  parts.push(make("h3", `Related concepts (${detail.neighbours.length})`));
  if (detail.neighbours.length) {
    const relation = new Map<number, string>();
    for (const edge of detail.edges) relation.set(edge.source === node.id ? edge.target : edge.source, edge.label);
    const list = make("ul", undefined, "neighbours");
    list.setAttribute("aria-label", "Related concepts");
    const items = detail.neighbours.map((neighbour) => {
      const item = make("li");
      const link = button(neighbour.label, () => actions.pick(neighbour.id));
      const label = relation.get(neighbour.id);
      if (label) link.title = label;
      item.append(link);
      return item;
    });
    list.append(...items.slice(0, SHOWN_NEIGHBOURS));
    parts.push(list);
    if (items.length > SHOWN_NEIGHBOURS) {
      const more = button(`Show all ${items.length}`, () => {
        list.append(...items.slice(SHOWN_NEIGHBOURS));
        more.remove();
      }, "quiet");
      parts.push(more);
    }
  } else parts.push(make("p", "None yet.", "hint"));

  parts.push(make("h3", `Notes that mention it (${detail.notes.length})`));
  const notes = make("ul", undefined, "notes");
  notes.setAttribute("aria-label", "Notes");
  for (const note of detail.notes) {
    const item = make("li");
    // The passage is Markdown: shown rendered (its **bold**, its [[links]]), never as raw marks.
    const passage = make("blockquote");
    passage.append(renderPassage(note.excerpt));
    item.append(button(note.title, () => actions.openNote(note.id), "link"), passage);
    notes.append(item);
  }
  parts.push(notes);
  region.replaceChildren(...parts);
}

export function renderDetailsMessage(region: HTMLElement, message: string): void {
  region.replaceChildren(make("p", message, "hint"));
}
