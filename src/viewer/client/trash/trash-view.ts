// `Trash` (`/trash`): the deleted notes (GET /api/trash), newest deletion first, each with its title,
// when it was deleted and when it is purged, `Restore` and `Delete forever` (which asks first);
// `Empty trash` (DELETE /api/trash) asks too. Pages of 50, `Show more` for the next.
import { del, get, post } from "../api";
import { button, byId, make } from "../dom";
import { attempt, when } from "../forms";
import type { Note } from "../types";

interface TrashedNote {
  id: number;
  title: string;
  tags: string[];
  excerpt: string;
  deleted_at: string;
  purge_at: string;
}
interface TrashPage {
  items: TrashedNote[];
  total: number;
  page: number;
  pages: number;
}

const PAGE_SIZE = 50;
const day = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

export interface TrashView {
  show(): void;
  reset(): void;
}

export function setUpTrash(actions: { restored(note: Note): void }): TrashView {
  const list = byId<HTMLUListElement>("trash");
  const summary = byId("trash-summary");
  const message = byId("trash-message");
  const more = byId("trash-more");
  const empty = byId<HTMLButtonElement>("empty-trash");
  let total = 0;
  let generation = 0;

  empty.addEventListener("click", () => {
    if (!confirm(`Delete all ${total === 1 ? "1 note" : `${total} notes`} in the trash for good? This cannot be undone.`)) return;
    void attempt(empty, message, async () => {
      await del("/api/trash");
      await load();
      message.textContent = "The trash is empty.";
    });
  });

  async function load(page = 1) {
    const mine = page === 1 ? ++generation : generation;
    const answer = await get<TrashPage>(`/api/trash?page=${page}&size=${PAGE_SIZE}`);
    if (mine !== generation) return;
    if (page === 1) {
      list.replaceChildren();
    }
    total = answer.total;
    for (const item of answer.items) list.append(row(item));
    summary.textContent = total === 0 ? "The trash is empty. Deleted notes wait here before they are purged." : `${total === 1 ? "1 note" : `${total} notes`} in the trash.`;
    empty.hidden = total === 0;
    more.replaceChildren();
    if (answer.page < answer.pages) more.append(button("Show more", () => void attempt(null, message, () => load(page + 1)), "quiet"));
  }

  function row(item: TrashedNote): HTMLLIElement {
    const li = make("li", undefined, "trash-item");
    const title = make("strong", item.title);
    const dates = make("small", `Deleted ${when(item.deleted_at)} · purged on ${day.format(new Date(item.purge_at))}`);
    const excerpt = item.excerpt ? make("small", item.excerpt, "excerpt") : null;
    const line = make("p", "", "error");
    line.setAttribute("role", "alert");
    const restore = button("Restore", () => void attempt(restore, line, async () => {
      const note = await post<Note>(`/api/trash/${item.id}/restore`);
      gone(li);
      actions.restored(note);
      message.textContent = `“${note.title}” is back in Notes.`;
    }));
    const purge = button("Delete forever", () => {
      if (!confirm(`Delete “${item.title}” for good, with its history? This cannot be undone.`)) return;
      void attempt(purge, line, async () => {
        await del(`/api/trash/${item.id}`);
        gone(li);
      });
    }, "danger");
    const buttons = make("div", undefined, "actions");
    buttons.append(restore, purge);
    li.append(title, dates, ...(excerpt ? [excerpt] : []), buttons, line);
    return li;
  }

  function gone(li: HTMLLIElement) {
    li.remove();
    total = Math.max(0, total - 1);
    summary.textContent = total === 0 ? "The trash is empty." : `${total === 1 ? "1 note" : `${total} notes`} in the trash.`;
    empty.hidden = total === 0;
  }

  return {
    show() {
      message.textContent = "";
      void attempt(null, message, () => load());
    },
    reset() {
      generation++;
      list.replaceChildren();
      more.replaceChildren();
      summary.textContent = "";
      message.textContent = "";
      total = 0;
    },
  };
}
