import { ext } from "./browser-api";
import { callApi, serverAddress } from "./rhizome-api";

// The toolbar button's badge follows a save: `…` while the server imports, `✓` once the note
// exists, `!` when it failed; a notification says how it ended, and opens the note when clicked.

export interface TaskRecord {
  id: number;
  status: "pending" | "running" | "completed" | "failed";
  note_id: number | null;
  error: string | null;
  message: string;
}

const POLL_MS = [500, 1000, 1000, 2000, 3000];
/** An import longer than this (a long video's transcript) is left to the app's Imports list. */
const FOLLOW_FOR_MS = 10 * 60_000;
const NOTE_NOTIFICATION = "rhizome-note:";

export async function showBadge(tabId: number | undefined, state: "working" | "done" | "failed"): Promise<void> {
  const look = { working: ["…", "#6b7280"], done: ["✓", "#15803d"], failed: ["!", "#b91c1c"] }[state];
  await Promise.all([
    ext.action.setBadgeText({ text: look[0]!, tabId }),
    ext.action.setBadgeBackgroundColor({ color: look[1]!, tabId }),
  ]).catch(() => undefined); // the tab may have closed meanwhile
}

export async function notify(title: string, message: string, noteId?: number): Promise<void> {
  const id = noteId === undefined ? `rhizome:${crypto.randomUUID()}` : `${NOTE_NOTIFICATION}${noteId}:${crypto.randomUUID()}`;
  await ext.notifications
    .create(id, { type: "basic", iconUrl: ext.runtime.getURL("icons/icon-128.png"), title, message: message.slice(0, 500) })
    .catch(() => undefined); // notifications may be turned off; the badge still tells
}

/** A click on a "saved" notification opens the note in the app: `<server>/#note=<id>`. */
export async function openNotifiedNote(notificationId: string): Promise<void> {
  await ext.notifications.clear(notificationId).catch(() => false);
  if (!notificationId.startsWith(NOTE_NOTIFICATION)) return;
  const noteId = Number(notificationId.slice(NOTE_NOTIFICATION.length).split(":")[0]);
  if (!Number.isSafeInteger(noteId)) return;
  await ext.tabs.create({ url: `${await serverAddress()}/#note=${noteId}` });
}

/** Polls GET /api/tasks/{id} until the task ends, moving the badge with it; never throws. */
export async function followTask(taskId: number, tabId: number | undefined, what: string): Promise<void> {
  const started = Date.now();
  for (let poll = 0; Date.now() - started < FOLLOW_FOR_MS; poll++) {
    let task: TaskRecord;
    try {
      task = await callApi<TaskRecord>("GET", `/api/tasks/${taskId}`);
    } catch (error) {
      await showBadge(tabId, "failed");
      await notify("Rhizome could not follow the save", error instanceof Error ? error.message : String(error));
      return;
    }
    if (task.status === "completed" && task.note_id !== null) {
      await showBadge(tabId, "done");
      await notify("Saved to Rhizome", `${what} is a note now. Click to open it.`, task.note_id);
      return;
    }
    if (task.status === "failed") {
      await showBadge(tabId, "failed");
      await notify("Rhizome could not save this", task.error ?? task.message);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS[Math.min(poll, POLL_MS.length - 1)]));
  }
}
