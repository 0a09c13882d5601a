// search_notes' answer as a person expects it: how many notes matched, then each hit's title and
// snippet (its matched words marked), a button that opens the note.
import { button, make } from "../client/dom";
import { snippetWithMarks } from "../client/snippet";
import type { NotePage } from "../client/types";

const count = new Intl.NumberFormat("en");

export function hitList(page: NotePage, query: string | undefined, open: (id: number) => void): HTMLElement {
  const section = make("section", undefined, "hits");
  const found = page.total === 1 ? "1 note" : `${count.format(page.total)} notes`;
  section.append(make("h1", query ? `${found} for “${query}”` : found));
  if (page.pages > 1) section.append(make("p", `Page ${page.page} of ${count.format(page.pages)}`, "hint"));
  const list = make("ul", undefined, "hit-list");
  list.setAttribute("aria-label", "Notes found");
  for (const hit of page.items) {
    const item = make("li");
    const opener = button("", () => open(hit.id));
    opener.append(make("strong", hit.title));
    if (hit.snippet) opener.append(snippetWithMarks(hit.snippet, hit.highlights ?? []));
    else if (hit.excerpt) opener.append(make("small", hit.excerpt));
    item.append(opener);
    list.append(item);
  }
  if (page.items.length) section.append(list);
  else section.append(make("p", "No note matches.", "hint"));
  return section;
}
