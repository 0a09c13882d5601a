// The editor: `Title`, `Content` (Markdown), `Tags` (comma separated), `Save` (or Ctrl/Cmd+S) and
// `Delete`. A save sends the `updated_at` the editor read (`expected_updated_at`): when the note
// changed elsewhere since, the server refuses it (409) and the editor shows `Conflict` with
// `Keep mine` (save over the newer text, which stays in the history) and `Take newer`.
import { ApiError, get, request } from "../api";
import { byId } from "../dom";
import { offlineAccount, unreachable } from "../offline/account";
import { rememberNote } from "../offline/seen-notes";
import { queueNoteSave, type OfflineNoteSave } from "../offline/store";
import type { Note } from "../types";

interface Fields {
  title: string;
  content: string;
  tags: string;
}

export interface EditorActions {
  saved(note: Note): void;
  /** Saved on this device, to be sent once online (the note's id, or null for a new note). */
  savedOffline(id: number | null): void;
  deleted(id: number): void;
  cancelled(id: number | null): void;
}

export interface Editor {
  /** Opens a note (or a new one, with an optional title) in the editor. */
  edit(note: Note | null, title?: string): void;
  hide(): void;
  isOpen(): boolean;
  dirty(): boolean;
  /** True when nothing unsaved would be lost, or the person agrees to lose it. */
  confirmLeave(): boolean;
  /** An offline save the server refused as a conflict: its text, with the `Conflict` choice. */
  conflict(save: OfflineNoteSave & { noteId: number }): void;
}

/** Commas (and the full-width comma typed with Chinese input) separate tags. */
export function parseTags(value: string): string[] {
  return [...new Set(value.split(/[,，]/).map((tag) => tag.trim()).filter(Boolean))];
}

export function setUpEditor(actions: EditorActions): Editor {
  const form = byId<HTMLFormElement>("editor");
  const title = byId<HTMLInputElement>("note-title-input");
  const content = byId<HTMLTextAreaElement>("note-content");
  const tags = byId<HTMLInputElement>("note-tags-input");
  const error = byId("editor-error");
  const conflict = byId("conflict");
  const save = form.querySelector<HTMLButtonElement>("button[type=submit]")!;
  const remove = byId<HTMLButtonElement>("delete-note");
  // `outboxId`: this note's save waiting in the outbox, replaced by the next offline save.
  let editing: { id: number | null; updatedAt: string | null; saved: Fields; outboxId?: number } | null = null;
  let busy = false;

  const fields = (): Fields => ({ title: title.value, content: content.value, tags: tags.value });
  const dirty = () => {
    if (!editing) return false;
    const now = fields();
    return now.title !== editing.saved.title || now.content !== editing.saved.content || parseTags(now.tags).join("\n") !== parseTags(editing.saved.tags).join("\n");
  };

  function fill(note: Note | null, presetTitle = "") {
    title.value = note?.title ?? presetTitle;
    content.value = note?.content ?? "";
    tags.value = note?.tags.join(", ") ?? "";
    editing = { id: note?.id ?? null, updatedAt: note?.updated_at ?? null, saved: fields() };
    if (!note) editing.saved = { title: "", content: "", tags: "" };
    conflict.hidden = true;
    error.textContent = "";
    remove.hidden = note === null;
    form.dataset.note = note ? String(note.id) : "new";
  }

  function edit(note: Note | null, presetTitle?: string) {
    fill(note, presetTitle);
    form.hidden = false;
    (note || presetTitle ? content : title).focus();
  }

  function hide() {
    editing = null;
    form.hidden = true;
    delete form.dataset.note;
  }

  async function run(action: () => Promise<void>) {
    if (busy) return;
    busy = true;
    save.disabled = remove.disabled = true;
    error.textContent = "";
    try {
      await action();
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 409) {
        conflict.hidden = false;
        byId("keep-mine").focus();
      } else if (!(failure instanceof ApiError && failure.status === 401)) {
        error.textContent = failure instanceof ApiError ? failure.message : "The server could not be reached: nothing was saved.";
      }
    } finally {
      busy = false;
      save.disabled = remove.disabled = false;
    }
  }

  /** Saves what the editor holds; over the note as it was at `expected` (the version last read). */
  const store = (expected = editing?.updatedAt ?? undefined) => run(() => write(expected));
  async function write(expected: string | undefined) {
    if (!editing) return;
    const body = { title: title.value.trim(), content: content.value, tags: parseTags(tags.value) };
    if (!body.title) {
      error.textContent = "A note needs a title.";
      title.focus();
      return;
    }
    let note: Note;
    try {
      note =
        editing.id === null
          ? await request<Note>("POST", "/api/notes", { json: body })
          : await request<Note>("PUT", `/api/notes/${editing.id}`, { json: { ...body, expected_updated_at: expected } });
    } catch (failure) {
      const account = offlineAccount();
      if (!unreachable(failure) || account === null) throw failure;
      await saveOffline(account, body);
      return;
    }
    editing = { id: note.id, updatedAt: note.updated_at, saved: fields() };
    conflict.hidden = true;
    actions.saved(note);
  }

  /** Offline: the save waits in the outbox, and the note's kept copy shows the new text meanwhile. */
  async function saveOffline(account: number, body: { title: string; content: string; tags: string[] }) {
    if (!editing) return;
    const { id, updatedAt } = editing;
    const outboxId = await queueNoteSave(account, { noteId: id, ...body, expectedUpdatedAt: updatedAt }, editing.outboxId ?? null);
    if (id !== null && updatedAt) await rememberNote(account, { id, ...body, created_at: updatedAt, updated_at: updatedAt });
    editing = { id, updatedAt, saved: fields(), outboxId };
    actions.savedOffline(id);
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void store();
  });
  // Ctrl+S / Cmd+S saves wherever the focus is while the editor is open, instead of saving the page.
  document.addEventListener("keydown", (event) => {
    if (!(event.ctrlKey || event.metaKey) || event.key.toLowerCase() !== "s" || form.hidden || !form.isConnected || form.closest("[hidden]")) return;
    event.preventDefault();
    void store();
  });
  byId("keep-mine").addEventListener("click", () =>
    void run(async () => {
      if (editing?.id == null) return;
      const newer = await get<Note>(`/api/notes/${editing.id}`);
      await write(newer.updated_at);
    }),
  );
  byId("take-newer").addEventListener("click", () =>
    void run(async () => {
      if (editing?.id == null) return;
      const newer = await get<Note>(`/api/notes/${editing.id}`);
      fill(newer);
      content.focus();
    }),
  );
  remove.addEventListener("click", () =>
    void run(async () => {
      if (editing?.id == null) return;
      const id = editing.id;
      if (!confirm(`Delete “${editing.saved.title}”? It goes to the trash, where it can be restored.`)) return;
      await request<void>("DELETE", `/api/notes/${id}`);
      hide();
      actions.deleted(id);
    }),
  );
  byId("cancel-edit").addEventListener("click", () => {
    if (!confirmLeave()) return;
    const id = editing?.id ?? null;
    hide();
    actions.cancelled(id);
  });
  // Closing the tab or reloading with unsaved text: the browser asks first.
  window.addEventListener("beforeunload", (event) => {
    if (dirty()) event.preventDefault();
  });

  function confirmLeave(): boolean {
    return !dirty() || confirm("You have unsaved changes in this note. Leave them?");
  }

  function showConflict(save: OfflineNoteSave & { noteId: number }) {
    title.value = save.title;
    content.value = save.content;
    tags.value = save.tags.join(", ");
    editing = { id: save.noteId, updatedAt: save.expectedUpdatedAt, saved: { title: "", content: "", tags: "" } };
    form.dataset.note = String(save.noteId);
    remove.hidden = false;
    error.textContent = "";
    form.hidden = false;
    conflict.hidden = false;
    byId("keep-mine").focus();
  }

  return { edit, hide, isOpen: () => editing !== null, dirty, confirmLeave, conflict: showConflict };
}
