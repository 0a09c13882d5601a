// `/save?url=<page>&title=<title>` (or `text=`): the bookmarklet's small window. With the login kept
// on this device (or after logging in here), it imports the page (POST /api/tasks, the platform
// chosen from the URL) and shows the task's status word until it ends, then offers the note.
import { get, post } from "../api";
import { byId } from "../dom";
import { failureText } from "../forms";
import type { Task } from "../types";

const POLL_MS = 1000;
const POLL_FOR_MS = 5 * 60 * 1000;

export interface SaveView {
  show(): void;
  reset(): void;
}

export function setUpSaveView(): SaveView {
  const what = byId("save-what");
  const status = byId("save-status");
  const message = byId("save-message");
  const error = byId("save-error");
  const open = byId<HTMLAnchorElement>("save-open");
  /** The query already saved: showing the view again (a re-login, back online) never saves twice. */
  let saved: string | null = null;
  let generation = 0;

  byId("save-close").addEventListener("click", () => {
    window.close();
    // A window the script did not open stays: go to the app instead.
    setTimeout(() => location.assign("/"), 100);
  });

  async function follow(task: Task, mine: number) {
    const until = Date.now() + POLL_FOR_MS;
    while (mine === generation) {
      status.textContent = task.status;
      status.className = `status-word ${task.status}`;
      message.textContent = task.message ?? "";
      if (task.status === "completed" || task.status === "failed") break;
      if (Date.now() > until) {
        message.textContent = "Still going: its progress is in Imports.";
        return;
      }
      await sleep(POLL_MS);
      task = await get<Task>(`/api/tasks/${task.id}`);
    }
    if (mine !== generation) return;
    if (task.status === "failed") error.textContent = task.error ?? "The import failed.";
    if (task.note_id !== null) {
      open.href = `/#note=${task.note_id}`;
      open.hidden = false;
    }
  }

  return {
    show() {
      const query = new URLSearchParams(location.search);
      const url = query.get("url")?.trim() ?? "";
      const text = query.get("text")?.trim() ?? "";
      const title = query.get("title")?.trim() ?? "";
      document.title = "Rhizome · Save";
      if (saved === location.search) return;
      const mine = ++generation;
      error.textContent = "";
      open.hidden = true;
      if (!/^https?:\/\//i.test(url) && !text) {
        what.textContent = "Nothing to save: the Save to Rhizome bookmarklet opens this page with the address of the page you are on.";
        status.textContent = "";
        return;
      }
      saved = location.search;
      what.textContent = title || url || text.slice(0, 200);
      status.textContent = "sending";
      status.className = "status-word pending";
      const body = url ? { url } : { content: text };
      void post<Task>("/api/tasks", body)
        .then((task) => follow(task, mine))
        .catch((failure: unknown) => {
          if (mine !== generation) return;
          saved = null; // refused or unreachable: showing the view again tries again
          status.textContent = "not saved";
          status.className = "status-word failed";
          error.textContent = failureText(failure);
        });
    },
    reset() {
      generation++;
      saved = null;
      what.textContent = status.textContent = message.textContent = error.textContent = "";
      open.hidden = true;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
