// A note's earlier versions under it in the page (GET /api/notes/{id}/versions): each can be shown in
// place of the note, and restored (POST …/versions/{version}/restore), which keeps the text it replaces.
import { ApiError, get, post } from "./api";
import { button, byId, make } from "./dom";
import type { Note } from "./types";

interface Version {
  version: number;
  title: string;
  size: number;
  created_at: string;
  replaced_at: string;
  by: { kind: string; name: string | null };
}

const AUTHORS: Record<string, string> = { session: "you", token: "a token", connector: "a connector", import: "an import", restore: "a restore" };

export function setUpNoteHistory(show: { version(note: Note, version: number, content: string): void; note(id: number): void }) {
  const summary = byId("note-history-summary");
  const list = byId<HTMLOListElement>("note-versions");
  let loading = 0;

  async function load(note: Note) {
    const attempt = ++loading;
    list.replaceChildren();
    summary.textContent = "Loading the history…";
    try {
      const page = await get<{ items: Version[]; total: number }>(`/api/notes/${note.id}/versions?size=50`);
      if (attempt !== loading) return;
      summary.textContent = page.total === 0 ? "No earlier versions: the note has not been edited." : `${page.total} earlier version${page.total === 1 ? "" : "s"}, newest first.`;
      for (const version of page.items) list.append(item(note, version));
    } catch (error) {
      if (attempt === loading) summary.textContent = error instanceof ApiError ? error.message : "The history could not be read.";
    }
  }

  function item(note: Note, version: Version): HTMLLIElement {
    const entry = make("li");
    const by = version.by.name ? `${AUTHORS[version.by.kind] ?? version.by.kind} (${version.by.name})` : (AUTHORS[version.by.kind] ?? version.by.kind);
    entry.append(make("strong", version.title), make("small", `Version ${version.version} · written ${new Date(version.created_at).toLocaleString()} by ${by} · ${version.size} bytes`));
    entry.append(
      button("Show", () => void attempt(async () => {
        const detail = await get<{ content: string }>(`/api/notes/${note.id}/versions/${version.version}`);
        show.version(note, version.version, detail.content);
      })),
      button("Restore", () => void attempt(async () => {
        if (!confirm(`Make version ${version.version} the note's text? The text it replaces stays in the history.`)) return;
        await post<Note>(`/api/notes/${note.id}/versions/${version.version}/restore`);
        show.note(note.id);
      })),
    );
    return entry;
  }

  /** A failed call says why in the history's summary line. */
  async function attempt(action: () => Promise<void>) {
    try {
      await action();
    } catch (error) {
      summary.textContent = error instanceof ApiError ? error.message : "The server could not be reached.";
    }
  }

  return { load, reset: () => (loading++, list.replaceChildren(), (summary.textContent = "")) };
}
