// `Import`: a page address (or the page pasted) and its platform start an import task
// (POST /api/tasks), or a document file its own (POST /api/tasks/document); `Imports` lists the latest tasks, each moving live over /api/events with its
// status word (pending, running, completed, failed), and a completed one opens its note.
import { ApiError, get, post, upload } from "../api";
import { button, byId, make } from "../dom";
import type { Task } from "../types";

const SHOWN = 20;

/** A document's type by its name, for the files a browser gives no type (Markdown, often). */
const DOCUMENT_TYPES: Record<string, string> = {
  pdf: "application/pdf",
  epub: "application/epub+zip",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  html: "text/html",
  htm: "text/html",
};

export function setUpImports(options: { completed(task: Task): void; open(noteId: number): void }) {
  const form = byId<HTMLFormElement>("import-form");
  const platform = byId<HTMLSelectElement>("platform");
  const address = byId<HTMLInputElement>("page-address");
  const pasted = byId<HTMLTextAreaElement>("page-content");
  const documentFile = byId<HTMLInputElement>("document-file");
  const error = byId("import-error");
  const list = byId<HTMLUListElement>("imports");
  const submit = form.querySelector<HTMLButtonElement>("button[type=submit]")!;
  const tasks = new Map<number, Task>();
  let loading = 0;

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    let url = address.value.trim();
    // An address typed without its scheme (example.com/post) means the web's: https.
    if (url && !/^[a-z][a-z0-9+.-]*:/i.test(url)) url = `https://${url}`;
    const content = pasted.value;
    error.textContent = "";
    const file = documentFile.files?.[0];
    if (file) {
      submit.disabled = true;
      try {
        const type = DOCUMENT_TYPES[file.name.split(".").pop()!.toLowerCase()] ?? file.type;
        update(await upload<Task>(`/api/tasks/document?filename=${encodeURIComponent(file.name)}`, file, type));
        documentFile.value = "";
      } catch (failure) {
        if (!(failure instanceof ApiError && failure.status === 401)) error.textContent = failure instanceof ApiError ? failure.message : "The server could not be reached.";
      } finally {
        submit.disabled = false;
      }
      return;
    }
    if (!url && !content.trim()) {
      error.textContent = "Give the page's address, paste the page, or choose a document.";
      address.focus();
      return;
    }
    if (url && !/^https?:\/\//i.test(url)) {
      error.textContent = "The page address starts with http:// or https://.";
      address.focus();
      return;
    }
    submit.disabled = true;
    try {
      const task = await post<Task>("/api/tasks", { platform: platform.value, ...(url ? { url } : {}), ...(content.trim() ? { content } : {}) });
      address.value = "";
      pasted.value = "";
      update(task);
    } catch (failure) {
      if (!(failure instanceof ApiError && failure.status === 401)) error.textContent = failure instanceof ApiError ? failure.message : "The server could not be reached.";
    } finally {
      submit.disabled = false;
    }
  });

  async function load() {
    const attempt = ++loading;
    try {
      const page = await get<{ items: Task[] }>(`/api/tasks?size=${SHOWN}`);
      if (attempt !== loading) return;
      // Events that arrived while the page was read are newer than it: keep them.
      for (const task of page.items.reverse()) if (!tasks.has(task.id)) tasks.set(task.id, task);
      render();
    } catch (failure) {
      if (attempt === loading && !(failure instanceof ApiError && failure.status === 401)) list.replaceChildren(make("li", "The imports could not be loaded.", "error"));
    }
  }

  /** A task as it is now (from the form, or a `task` event); completing opens the way to its note. */
  function update(task: Task) {
    const before = tasks.get(task.id);
    tasks.delete(task.id);
    tasks.set(task.id, task);
    render();
    if (task.status === "completed" && before?.status !== "completed") options.completed(task);
  }

  function render() {
    const newest = [...tasks.values()].sort((a, b) => b.id - a.id).slice(0, SHOWN);
    if (newest.length === 0) return list.replaceChildren(make("li", "Nothing imported yet.", "hint"));
    list.replaceChildren(...newest.map(item));
  }

  function item(task: Task): HTMLLIElement {
    const entry = make("li", undefined, `task ${task.status}`);
    entry.dataset.task = String(task.id);
    const head = make("div", undefined, "task-head");
    head.append(make("span", task.status, `status-word ${task.status}`), make("span", task.url ?? (task.platform === "document" ? "uploaded document" : `pasted ${task.platform} page`), "task-source"));
    entry.append(head);
    const detail = task.status === "failed" ? task.error : task.status === "completed" ? null : [task.progress ? `${task.progress}%` : "", task.message ?? ""].filter(Boolean).join(" · ");
    if (detail) entry.append(make("small", detail));
    if (task.status === "completed" && task.note_id !== null) {
      const noteId = task.note_id;
      entry.append(button("Open note", () => options.open(noteId), "link"));
    }
    return entry;
  }

  return {
    load,
    update,
    reset() {
      loading++;
      tasks.clear();
      list.replaceChildren();
      error.textContent = "";
    },
  };
}
