// `Notes`: the user's notes, newest first, a page at a time as the list scrolls (an
// IntersectionObserver on a sentinel after the last item); narrowed by a tag (`All tags`) and by
// words (`Search notes`, then most relevant first, with the matched words marked).
import { ApiError } from "../api";
import { offlineAccount } from "../offline/account";
import { keepListedTexts } from "../offline/keep-texts";
import { readNotePage } from "../offline/read-notes";
import { waitingNoteSaves } from "../offline/store";
import { button, byId, make } from "../dom";
import { snippetWithMarks } from "../snippet";
import type { NoteListItem } from "../types";

const PAGE_SIZE = 50;
const count = new Intl.NumberFormat("en");
const day = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

export interface NotesFilter {
  tag: string | null;
  q: string;
}

export interface NotesList {
  /** Starts again from the first page with this filter (omitted parts keep theirs). */
  show(filter: Partial<NotesFilter>): void;
  /** Reloads the first page (after a save, a delete, an import). */
  refresh(): void;
  filter(): NotesFilter;
  markCurrent(id: number | null): void;
  reset(): void;
}

export function setUpNotesList(options: { open(id: number): void; filtered(filter: NotesFilter): void }): NotesList {
  const list = byId<HTMLUListElement>("notes");
  const summary = byId("notes-summary");
  const more = byId("notes-more");
  const clear = byId<HTMLButtonElement>("clear-filter");
  const sentinel = make("li", undefined, "sentinel");
  sentinel.setAttribute("aria-hidden", "true");
  let filter: NotesFilter = { tag: null, q: "" };
  let page = 0;
  let pages = 1;
  let total = 0;
  let loading = false;
  let generation = 0;
  let current: number | null = null;

  const observer = new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) void loadMore();
  }, { rootMargin: "600px 0px" });

  clear.addEventListener("click", () => show({ tag: null, q: "" }));

  async function loadMore() {
    if (loading || page >= pages) return;
    loading = true;
    const attempt = generation;
    list.setAttribute("aria-busy", "true");
    more.textContent = page === 0 ? "Loading notes…" : "Loading more…";
    try {
      const query = new URLSearchParams({ page: String(page + 1), size: String(PAGE_SIZE) });
      if (filter.tag) query.set("tag", filter.tag);
      if (filter.q) query.set("q", filter.q);
      const result = await readNotePage(query, filter);
      if (attempt !== generation) return;
      page = result.page;
      pages = result.pages;
      total = result.total;
      const items = document.createDocumentFragment();
      for (const note of result.items) items.append(item(note));
      list.insertBefore(items, sentinel);
      describe();
      if (result.kept) summary.textContent = `Offline: ${summary.textContent} kept on this device.`;
      else if (page === 1) keepListedTexts();
      await markWaiting(attempt);
      list.dataset.loaded = String(list.querySelectorAll("button.note-item").length);
    } catch (error) {
      if (attempt !== generation) return;
      pages = page; // no more attempts until the filter changes
      if (!(error instanceof ApiError && error.status === 401)) {
        summary.textContent = error instanceof ApiError ? error.message : "The notes could not be loaded.";
      }
    } finally {
      if (attempt === generation) {
        loading = false;
        list.removeAttribute("aria-busy");
        more.textContent = page < pages ? "" : page > 1 ? "That is all." : "";
        // A page that does not fill the view leaves the sentinel in sight: look again.
        observer.unobserve(sentinel);
        if (page < pages) observer.observe(sentinel);
      }
    }
  }

  /** Notes saved offline and not sent yet: marked `Waiting to sync`; new ones listed first. */
  async function markWaiting(attempt: number) {
    const account = offlineAccount();
    const saves = account === null ? [] : await waitingNoteSaves(account);
    if (attempt !== generation) return;
    for (const chip of Array.from(list.querySelectorAll(".waiting"))) chip.remove();
    for (const save of saves) {
      const open = save.noteId === null ? null : list.querySelector<HTMLButtonElement>(`button.note-item[data-id="${save.noteId}"]`);
      if (open) open.querySelector(".note-item-meta")?.prepend(make("span", "Waiting to sync", "chip waiting"));
      else if (save.noteId === null && page === 1) {
        const entry = make("li", undefined, "waiting");
        const pending = make("div", undefined, "note-item");
        pending.append(make("strong", save.title, "note-item-title"), make("span", "Waiting to sync", "chip"));
        entry.append(pending);
        list.prepend(entry);
      }
    }
  }

  function describe() {
    const notes = `${count.format(total)} note${total === 1 ? "" : "s"}`;
    const parts = [notes];
    if (filter.tag) parts.push(`tagged “${filter.tag}”`);
    if (filter.q) parts.push(total === 0 ? `match “${filter.q}”` : `matching “${filter.q}”`);
    summary.textContent = total === 0 && !filter.tag && !filter.q ? "No notes yet: press New note, or import a page." : parts.join(" ");
    clear.hidden = !filter.tag && !filter.q;
  }

  function item(note: NoteListItem): HTMLLIElement {
    const entry = make("li");
    const open = button("", () => options.open(note.id), "note-item");
    open.dataset.id = String(note.id);
    if (note.id === current) open.setAttribute("aria-current", "true");
    open.append(make("strong", note.title, "note-item-title"));
    if (note.snippet !== undefined) open.append(snippetWithMarks(note.snippet, note.highlights ?? []));
    else if (note.excerpt) open.append(make("small", withoutLinkMarks(note.excerpt)));
    const meta = make("span", undefined, "note-item-meta");
    meta.append(make("time", day.format(new Date(note.updated_at))));
    for (const tag of note.tags) meta.append(make("span", `#${tag}`, "chip"));
    open.append(meta);
    entry.append(open);
    return entry;
  }

  function show(next: Partial<NotesFilter>) {
    filter = { ...filter, ...next };
    generation++;
    loading = false;
    page = 0;
    pages = 1;
    total = 0;
    observer.unobserve(sentinel);
    list.replaceChildren(sentinel);
    delete list.dataset.loaded;
    list.scrollTop = 0;
    options.filtered(filter);
    void loadMore();
  }

  function markCurrent(id: number | null) {
    current = id;
    for (const open of Array.from(list.querySelectorAll<HTMLButtonElement>("button.note-item"))) {
      if (Number(open.dataset.id) === id) open.setAttribute("aria-current", "true");
      else open.removeAttribute("aria-current");
    }
  }

  function reset() {
    generation++;
    filter = { tag: null, q: "" };
    current = null;
    observer.unobserve(sentinel);
    list.replaceChildren();
    summary.textContent = "";
    more.textContent = "";
    clear.hidden = true;
  }

  return { show, refresh: () => show({}), filter: () => filter, markCurrent, reset };
}

/** `[[Title]]` and `[[Title|text]]` in an excerpt read as the words they show. */
function withoutLinkMarks(excerpt: string): string {
  return excerpt.replace(/\[\[([^[\]|\n]+)(?:\|([^[\]\n]+))?\]\]/g, (_, target: string, label?: string) => label ?? target);
}
