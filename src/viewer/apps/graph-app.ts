// ui://rhizome/graph, drawn by a host for get_concept and search_concepts: a concept and its
// neighbours (or the concepts a search found), drawn by the page's graph view, with the concept's
// details below as the page shows them. A click on a concept, in the drawing or in a list, asks the
// host to call get_concept, and draws that concept's neighbourhood; a note opens through get_note.
import { renderDetails } from "../client/details";
import { button, make } from "../client/dom";
import { GraphView, webglAvailable } from "../client/graph-view";
import type { GraphData, GraphEdge, GraphNode, NodeDetail, Note } from "../client/types";
import { startApp, type AppShell } from "./app-shell";
import { graphPalette, neighbourhood, settledPlaces, startPlaces } from "./neighbourhood";
import { noteCard } from "./note-card";

const count = new Intl.NumberFormat("en");

function graphApp(shell: AppShell) {
  const stage = make("div", undefined, "graph");
  stage.setAttribute("role", "img");
  const caption = make("p", "", "hint");
  const panel = make("section", undefined, "details");
  shell.root.replaceChildren(stage, caption, panel);
  let view: GraphView | null | undefined;
  let shown: NodeDetail | null = null;
  let asking = 0;
  let drawing = 0;

  /** Sigma, made on first use; null where this browser has no WebGL (the lists still work). */
  const graphView = (): GraphView | null => {
    if (view !== undefined) return view;
    view = null;
    if (webglAvailable()) {
      try {
        view = new GraphView(stage, { select: (id) => (id === null ? view?.select(shown?.node.id ?? null) : void ask(id)), expand: (id) => void ask(id) }, graphPalette());
      } catch {
        stage.replaceChildren();
      }
    }
    if (!view) stage.hidden = true;
    return view;
  };

  async function draw(nodes: GraphNode[], edges: GraphEdge[], centre: number | null, label: string) {
    const attempt = ++drawing;
    stage.setAttribute("aria-label", label);
    stage.hidden = nodes.length === 0;
    const graph = graphView();
    if (!graph || nodes.length === 0) return;
    const start = startPlaces(nodes, centre);
    await graph.show(nodes, edges, start);
    const places = settledPlaces(nodes, edges, start, (node) => graph.sizeOf(node));
    if (attempt !== drawing) return;
    await graph.moveTo(places, true);
    if (attempt !== drawing) return;
    graph.select(centre);
    stage.dataset.drawn = String(nodes.length);
    stage.dataset.centre = centre === null ? "" : String(centre);
  }

  function showDetail(detail: NodeDetail) {
    shown = detail;
    const { nodes, edges, left } = neighbourhood(detail);
    caption.textContent = left ? `The ${count.format(nodes.length - 1)} heaviest of ${count.format(detail.neighbours.length)} related concepts are drawn.` : "";
    renderDetails(panel, detail, { pick: (id) => void ask(id), openNote: (id) => void openNote(id) });
    void draw(nodes, edges, detail.node.id, `${detail.node.label} and ${detail.neighbours.length} related concepts`);
  }

  function showFound(data: GraphData, query: string | undefined) {
    shown = null;
    caption.textContent = "";
    const found = data.nodes.length === 1 ? "1 concept" : `${count.format(data.nodes.length)} concepts`;
    const list = make("ul", undefined, "neighbours");
    list.setAttribute("aria-label", "Concepts found");
    for (const node of data.nodes) {
      const item = make("li");
      const pick = button(node.label, () => void ask(node.id));
      pick.title = `${node.type} · ${count.format(node.weight)} mentions`;
      item.append(pick);
      list.append(item);
    }
    panel.replaceChildren(make("h2", query ? `${found} for “${query}”` : found), data.nodes.length ? list : make("p", "No concept matches.", "hint"));
    void draw(data.nodes, data.edges, null, `${found} found`);
  }

  async function ask(id: number) {
    const attempt = ++asking;
    view?.select(id);
    try {
      const detail = (await shell.call("get_concept", { id })) as unknown as NodeDetail;
      if (attempt === asking) showDetail(detail);
    } catch (error) {
      if (attempt === asking) shell.say(error instanceof Error ? error.message : String(error));
    }
  }

  async function openNote(id: number) {
    try {
      const note = (await shell.call("get_note", { id })) as unknown as Note;
      const concept = shown;
      const back = concept ? [button(`Back to ${concept.node.label}`, () => showDetail(concept), "quiet")] : [];
      panel.replaceChildren(...back, noteCard(note));
    } catch (error) {
      shell.say(error instanceof Error ? error.message : String(error));
    }
  }

  return {
    draw(answer: Record<string, unknown>, args: Record<string, unknown>) {
      if (answer.node && Array.isArray(answer.neighbours)) showDetail(answer as unknown as NodeDetail);
      else if (Array.isArray(answer.nodes)) showFound(answer as unknown as GraphData, typeof args.q === "string" ? args.q : undefined);
      else throw new Error("This answer is neither a concept nor a list of concepts.");
    },
    restyle: () => view?.setPalette(graphPalette()),
  };
}

void startApp("graph", graphApp);
