// The page's two views on one bundle: the notes app at `/` and the graph at `/graph`. The parts both
// show (the ask and `Search notes` tools, a note's view) exist once and move into the view on show,
// so every label names exactly one thing on the page.
import { byId } from "../dom";

export type ViewName = "notes" | "graph";

export const viewOfPath = (pathname: string): ViewName => (/^\/graph\/?$/.test(pathname) ? "graph" : "notes");
export const pathOf = (view: ViewName) => (view === "graph" ? "/graph" : "/");

export function placeShared(view: ViewName): void {
  byId(view === "graph" ? "graph-tools-slot" : "app-tools-slot").append(byId("tools"));
  // A note's Related notes section sits right after its article (related-notes.ts), and moves with it.
  const related = document.getElementById("related-notes");
  byId(view === "graph" ? "graph-note-slot" : "app-note-slot").append(byId("note"), ...(related ? [related] : []));
}

/** The header's links: the one for the view on show is marked current. */
export function markNav(view: ViewName): void {
  for (const [id, name] of [["to-notes", "notes"], ["to-graph", "graph"]] as const) {
    if (name === view) byId(id).setAttribute("aria-current", "page");
    else byId(id).removeAttribute("aria-current");
  }
}
