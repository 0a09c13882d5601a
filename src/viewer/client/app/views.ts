// The page's views on one bundle: the notes app at `/`, the graph at `/graph`, the feeds at `/feeds`, the trash at `/trash`,
// the settings at `/settings` and the bookmarklet's `/save`. The parts the notes and graph views both show (the ask and
// `Search notes` tools, a note's view) exist once and move into the view on show, so every label
// names exactly one thing on the page.
import { byId } from "../dom";

export const VIEWS = ["notes", "graph", "feeds", "trash", "settings", "save"] as const;
export type ViewName = (typeof VIEWS)[number];

const PATHS: Record<ViewName, string> = { notes: "/", graph: "/graph", feeds: "/feeds", trash: "/trash", settings: "/settings", save: "/save" };

export function viewOfPath(pathname: string): ViewName {
  const trimmed = pathname.length > 1 ? pathname.replace(/\/$/, "") : pathname;
  return VIEWS.find((view) => PATHS[view] === trimmed) ?? "notes";
}
export const pathOf = (view: ViewName) => PATHS[view];

export function placeShared(view: ViewName): void {
  if (view !== "notes" && view !== "graph") return;
  byId(view === "graph" ? "graph-tools-slot" : "app-tools-slot").append(byId("tools"));
  // A note's Related notes section sits right after its article (related-notes.ts), and moves with it.
  const related = document.getElementById("related-notes");
  byId(view === "graph" ? "graph-note-slot" : "app-note-slot").append(byId("note"), ...(related ? [related] : []));
}

/** The header's links: the one for the view on show is marked current. */
export function markNav(view: ViewName): void {
  for (const name of VIEWS) {
    const link = document.getElementById(`to-${name}`); // `/save` (the bookmarklet's window) has no link
    if (!link) continue;
    if (name === view) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}
