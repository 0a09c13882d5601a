// The notes app (`/`): `Notes`, `All tags`, `Search notes` filtering the list, the editor and the
// note's rendered view in the pane, `Import` with live `Imports`, and `Export`.
import { byId } from "../dom";
import { renderMarkdown } from "../markdown";
import type { NoteView } from "../note-view";
import type { OfflineNoteSave } from "../offline/store";
import type { Note, Task } from "../types";
import { setUpEditor } from "./editor";
import { setUpExport } from "./export-notes";
import { setUpImports } from "./imports";
import { setUpNotesList } from "./notes-list";
import { setUpTagList } from "./tag-list";

export interface NotesApp {
  /** Loads the list, the tags and the imports, once per login. */
  start(): void;
  /** Reads the list and the tags again (a note came back from the trash, the outbox sent one). */
  refresh(): void;
  /** An offline save refused as a conflict: the editor shows it with `Conflict`. */
  conflict(save: OfflineNoteSave & { noteId: number }): void;
  reset(): void;
  openNote(id: number): void;
  edit(note: Note): void;
  newNote(title?: string): void;
  search(q: string): void;
  task(task: Task): void;
  /** The editor is open: a note shown elsewhere must not cover it. */
  editing(): boolean;
  /** Before a note opens in the pane from elsewhere (an answer's source): the editor gives way, asking first when it holds changes. */
  yieldPane(): boolean;
  confirmLeave(): boolean;
}

export function setUpNotesApp(note: NoteView, view: { showNotes(): void }): NotesApp {
  const editor = setUpEditor({
    saved(saved) {
      list.refresh();
      void tags.load();
      show(saved.id);
    },
    savedOffline(id) {
      list.refresh();
      editorMessage("You are offline: the note is saved on this device, and sent when you are back online.");
      if (id !== null) show(id);
      else {
        editor.hide();
        note.close();
      }
    },
    deleted() {
      list.refresh();
      void tags.load();
      note.close();
      list.markCurrent(null);
    },
    cancelled(id) {
      if (id !== null) show(id);
    },
  });
  const list = setUpNotesList({ open: (id) => openNote(id), filtered: (filter) => tags.mark(filter.tag) });
  const tags = setUpTagList({ choose: (tag) => list.show({ tag }) });
  const imports = setUpImports({
    completed() {
      list.refresh();
      void tags.load();
    },
    open: (id) => openNote(id),
  });
  const exporter = setUpExport();
  let started = false;

  byId("new-note").addEventListener("click", () => newNote());
  const editorMessage = (text: string) => (byId("outbox-status").textContent = text);

  /** The note's rendered view in the pane (the editor closed). */
  function show(id: number) {
    editor.hide();
    list.markCurrent(id);
    view.showNotes();
    void note.open(id);
  }

  function openNote(id: number) {
    if (editor.confirmLeave()) show(id);
  }

  function edit(target: Note) {
    if (!editor.confirmLeave()) return;
    view.showNotes();
    note.close();
    list.markCurrent(target.id);
    editor.edit(target);
  }

  function newNote(title?: string) {
    if (!editor.confirmLeave()) return;
    view.showNotes();
    note.close();
    list.markCurrent(null);
    editor.edit(null, title);
  }

  return {
    start() {
      if (started) return;
      started = true;
      list.show({});
      void tags.load();
      void imports.load();
      // The first note opened should not pay for compiling the Markdown parser's patterns: warm it while idle.
      const warm = () => void renderMarkdown("# A\n\n**b** *c* [[d]] `e` [f](https://g.example)\n\n- h\n\n> i");
      if ("requestIdleCallback" in window) requestIdleCallback(warm, { timeout: 2000 });
      else setTimeout(warm, 200);
    },
    refresh() {
      if (!started) return;
      list.refresh();
      void tags.load();
    },
    reset() {
      started = false;
      editor.hide();
      list.reset();
      tags.reset();
      imports.reset();
      exporter.reset();
    },
    conflict(save) {
      view.showNotes();
      note.close();
      list.markCurrent(save.noteId);
      editor.conflict(save);
    },
    openNote,
    edit,
    newNote,
    search(q) {
      if (started && q !== list.filter().q) list.show({ q });
    },
    task: (task) => imports.update(task),
    editing: () => editor.isOpen(),
    yieldPane() {
      if (!editor.isOpen()) return true;
      if (!editor.confirmLeave()) return false;
      editor.hide();
      return true;
    },
    confirmLeave: () => editor.confirmLeave(),
  };
}
