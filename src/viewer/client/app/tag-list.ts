// `All tags`: each of the user's tags (GET /api/tags) a button with its count; choosing one filters
// `Notes`, choosing it again shows all notes.
import { ApiError, get } from "../api";
import { button, byId, make } from "../dom";

interface TagCount {
  tag: string;
  count: number;
}

const count = new Intl.NumberFormat("en");

export function setUpTagList(options: { choose(tag: string | null): void }) {
  const list = byId<HTMLUListElement>("all-tags");
  let chosen: string | null = null;
  let loading = 0;

  async function load() {
    const attempt = ++loading;
    try {
      const { items } = await get<{ items: TagCount[] }>("/api/tags");
      if (attempt !== loading) return;
      if (items.length === 0) return list.replaceChildren(make("li", "No tags yet: add some in a note's Tags.", "hint"));
      list.replaceChildren(
        ...items.map(({ tag, count: notes }) => {
          const entry = make("li");
          const choose = button("", () => options.choose(chosen === tag ? null : tag), "tag");
          choose.dataset.tag = tag;
          choose.setAttribute("aria-pressed", String(tag === chosen));
          choose.append(make("span", tag), make("span", count.format(notes), "count"));
          entry.append(choose);
          return entry;
        }),
      );
    } catch (error) {
      if (attempt === loading && !(error instanceof ApiError && error.status === 401)) list.replaceChildren(make("li", "The tags could not be loaded.", "error"));
    }
  }

  function mark(tag: string | null) {
    chosen = tag;
    for (const choose of Array.from(list.querySelectorAll<HTMLButtonElement>("button.tag"))) choose.setAttribute("aria-pressed", String(choose.dataset.tag === tag));
  }

  return { load, mark, reset: () => (loading++, (chosen = null), list.replaceChildren()) };
}
