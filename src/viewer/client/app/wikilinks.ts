// Where a `[[wikilink]]` leads: the note with that title (found by searching for it, then matched
// exactly, ignoring case and width), else the concept of that name in the graph, else nowhere yet.
import { ApiError, get } from "../api";
import type { GraphData, NotePage } from "../types";

export type WikilinkTarget = { note: number } | { concept: number } | null;

const same = (value: string) => value.normalize("NFKC").trim().toLowerCase();

export async function resolveWikilink(title: string): Promise<WikilinkTarget> {
  const wanted = same(title);
  const phrase = `"${title.replaceAll('"', " ").slice(0, 190)}"`;
  try {
    const page = await get<NotePage>(`/api/notes?${new URLSearchParams({ q: phrase, size: "50" })}`);
    const note = page.items.find((item) => same(item.title) === wanted);
    if (note) return { note: note.id };
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 400)) throw error; // 400: nothing searchable in the title
  }
  try {
    const graph = await get<GraphData>(`/api/knowledge-graph?${new URLSearchParams({ q: title.slice(0, 200), limit: "50" })}`);
    const node = graph.nodes.find((candidate) => same(candidate.label) === wanted || candidate.aliases?.some((alias) => same(alias) === wanted));
    if (node) return { concept: node.id };
  } catch (error) {
    if (!(error instanceof ApiError && (error.status === 400 || error.status === 404))) throw error;
  }
  return null;
}
