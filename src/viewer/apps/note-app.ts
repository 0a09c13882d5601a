// ui://rhizome/note, drawn by a host for get_note and search_notes: the note, or the notes a search
// found. A hit opens its note, and a [[link]] the note of that title, each by asking the host to call
// this server's tool (get_note, search_notes); from a note opened so, Back returns to the hits.
import { button } from "../client/dom";
import type { Note, NotePage } from "../client/types";
import { startApp, type AppShell } from "./app-shell";
import { hitList } from "./hit-list";
import { noteCard } from "./note-card";

const same = (value: string) => value.normalize("NFKC").trim().toLowerCase();

function noteApp(shell: AppShell) {
  let hits: { page: NotePage; query: string | undefined } | null = null;

  const showHits = (page: NotePage, query: string | undefined) => {
    hits = { page, query };
    shell.root.replaceChildren(hitList(page, query, (id) => void openNote(id)));
  };

  const showNote = (note: Note, fromHits: boolean) => {
    const shown = hits;
    const back = fromHits && shown ? [button("Back to the results", () => showHits(shown.page, shown.query), "quiet")] : [];
    shell.root.replaceChildren(...back, noteCard(note));
  };

  async function openNote(id: number) {
    try {
      showNote((await shell.call("get_note", { id })) as unknown as Note, true);
    } catch (error) {
      shell.say(error instanceof Error ? error.message : String(error));
    }
  }

  /** As the page does: the note of that title (ignoring case and width), else what a search for it finds. */
  async function followWikilink(title: string) {
    try {
      const page = (await shell.call("search_notes", { q: `"${title.replaceAll('"', " ").slice(0, 190)}"`, size: 50 })) as unknown as NotePage;
      const note = page.items.find((item) => same(item.title) === same(title));
      if (note) await openNote(note.id);
      else showHits(page, title);
    } catch (error) {
      shell.say(error instanceof Error ? error.message : String(error));
    }
  }

  return {
    draw(answer: Record<string, unknown>, args: Record<string, unknown>) {
      if (typeof answer.content === "string" && typeof answer.title === "string") showNote(answer as unknown as Note, false);
      else if (Array.isArray(answer.items)) showHits(answer as unknown as NotePage, typeof args.q === "string" ? args.q : undefined);
      else throw new Error("This answer is neither a note nor a list of notes.");
    },
    wikilink: (target: string) => void followWikilink(target),
  };
}

void startApp("note", noteApp);
