// `Search notes`: full-text search (GET /api/notes?q=) from the page; a hit opens the note in the page.
import { ApiError, get } from "./api";
import { button, byId, make } from "./dom";
import { snippetWithMarks } from "./snippet";

interface SearchHit {
  id: number;
  title: string;
  snippet?: string;
  highlights?: [number, number][];
}

interface SearchPage {
  items: SearchHit[];
  total: number;
}

const TYPING_PAUSE_MS = 300;
const PAGE_SIZE = 10;

/**
 * `filter()` names where the words go instead of `Search results`: in the notes app, `Search notes`
 * filters the `Notes` list itself.
 */
export function setUpNoteSearch(openNote: (id: number) => void, filter: () => ((q: string) => void) | null = () => null): { reset(): void; again(): void } {
  const form = byId<HTMLFormElement>("note-search-form");
  const input = byId<HTMLInputElement>("note-search");
  const results = byId<HTMLUListElement>("note-results");
  const summary = byId("note-results-summary");
  let asked = 0;
  let pause: ReturnType<typeof setTimeout> | undefined;

  const reset = () => {
    asked++;
    clearTimeout(pause);
    input.value = "";
    results.replaceChildren();
    summary.textContent = "";
  };

  async function search() {
    clearTimeout(pause);
    const q = input.value.trim();
    const attempt = ++asked;
    const elsewhere = filter();
    if (elsewhere) {
      results.replaceChildren();
      summary.textContent = "";
      return elsewhere(q);
    }
    if (!q) {
      results.replaceChildren();
      summary.textContent = "";
      return;
    }
    try {
      const page = await get<SearchPage>(`/api/notes?${new URLSearchParams({ q, size: String(PAGE_SIZE) })}`);
      if (attempt !== asked) return;
      results.replaceChildren(...page.items.map((hit) => hitItem(hit, openNote)));
      summary.textContent =
        page.total === 0 ? "No note matches." : page.total > page.items.length ? `Showing ${page.items.length} of ${page.total} notes.` : "";
    } catch (error) {
      if (attempt !== asked) return;
      results.replaceChildren();
      // A 400 says what was wrong with the query (e.g. nothing searchable left in it).
      summary.textContent = error instanceof ApiError ? error.message : "The server could not be reached.";
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void search();
  });
  input.addEventListener("input", () => {
    clearTimeout(pause);
    pause = setTimeout(() => void search(), TYPING_PAUSE_MS);
  });
  // The view changed: the words in the box go where this view shows them.
  return { reset, again: () => void search() };
}

function hitItem(hit: SearchHit, openNote: (id: number) => void): HTMLLIElement {
  const item = make("li");
  const open = button("", () => openNote(hit.id));
  open.append(make("strong", hit.title));
  if (hit.snippet) open.append(snippetWithMarks(hit.snippet, hit.highlights ?? []));
  item.append(open);
  return item;
}
