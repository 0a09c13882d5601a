// The `Concepts` list (every loaded node, heaviest first, each a button) and the `Search concepts`
// box that narrows it as you type; Enter goes to the first match.
import { make } from "./dom";
import type { GraphNode } from "./types";

const count = new Intl.NumberFormat("en");
/** Items built per task. */
const CHUNK = 400;

interface ListEntry {
  node: GraphNode;
  key: string;
  item: HTMLLIElement;
  button: HTMLButtonElement;
}

export class ConceptList {
  private items: ListEntry[] = [];
  private generation = 0;
  private current: HTMLButtonElement | undefined;

  constructor(
    private readonly list: HTMLUListElement,
    private readonly search: HTMLInputElement,
    private readonly pick: (id: number) => void,
  ) {
    search.addEventListener("input", () => this.filter());
    search.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        const first = this.firstMatch();
        if (first) this.pick(first.id);
      } else if (event.key === "ArrowDown") {
        event.preventDefault();
        this.items.find((entry) => !entry.item.hidden)?.button.focus();
      }
    });
    list.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
      const visible = this.items.filter((entry) => !entry.item.hidden);
      const at = visible.findIndex((entry) => entry.button === document.activeElement);
      const next = visible[at + (event.key === "ArrowDown" ? 1 : -1)];
      if (next) {
        event.preventDefault();
        next.button.focus();
      } else if (event.key === "ArrowUp") search.focus();
    });
  }

  /** Shows these nodes, heaviest first; past the first few hundred, a chunk per task so the page stays responsive. */
  setNodes(nodes: GraphNode[]): void {
    const generation = ++this.generation;
    const sorted = [...nodes].sort((a, b) => b.weight - a.weight || a.id - b.id);
    this.items = [];
    this.current = undefined;
    this.list.replaceChildren();
    this.list.setAttribute("aria-busy", "true");
    const append = (start: number) => {
      if (generation !== this.generation) return;
      const fragment = document.createDocumentFragment();
      const query = searchKey(this.search.value);
      for (const node of sorted.slice(start, start + CHUNK)) {
        const entry = this.entry(node);
        entry.item.hidden = query !== "" && !entry.key.includes(query);
        this.items.push(entry);
        fragment.append(entry.item);
      }
      this.list.append(fragment);
      if (start + CHUNK < sorted.length) setTimeout(() => append(start + CHUNK), 0);
      else this.list.removeAttribute("aria-busy");
    };
    append(0);
  }

  private entry(node: GraphNode): ListEntry {
    const item = make("li");
    const button = make("button");
    button.type = "button";
    button.dataset.id = String(node.id);
    button.append(make("span", node.label), make("small", `${node.type} · ${count.format(node.weight)}`));
    button.addEventListener("click", () => this.pick(node.id));
    item.append(button);
    return { node, key: searchKey(node.label), item, button };
  }

  markCurrent(id: number | null): void {
    this.current?.removeAttribute("aria-current");
    this.current = id === null ? undefined : this.items.find((entry) => entry.node.id === id)?.button;
    this.current?.setAttribute("aria-current", "true");
  }

  /** The best match for the search box: a label that starts with the query before one that contains it. */
  firstMatch(): GraphNode | undefined {
    const query = searchKey(this.search.value);
    if (!query) return undefined;
    return (this.items.find((entry) => entry.key.startsWith(query)) ?? this.items.find((entry) => entry.key.includes(query)))?.node;
  }

  private filter(): void {
    const query = searchKey(this.search.value);
    for (const entry of this.items) entry.item.hidden = query !== "" && !entry.key.includes(query);
  }
}

function searchKey(text: string): string {
  return text.normalize("NFKC").toLocaleLowerCase().trim().replace(/\s+/g, " ");
}
