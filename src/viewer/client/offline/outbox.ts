// The outbox: what was shared to the app (kept by the service worker) and notes saved while
// offline, sent in order once the app is logged in and online — at start, when the browser says it
// is back online, and when the worker says something arrived. A share becomes an import (a link), a
// note (text, pictures) or an upload (a recording, a PDF); a note goes with `expected_updated_at`,
// and a conflict is handed to the editor's `Conflict` choice. What the server refuses for good is
// dropped with a word on the status line; what could not reach it waits.
import { ApiError, request, upload } from "../api";
import { byId } from "../dom";
import { failureText } from "../forms";
import { readToken } from "../session";
import type { Note, Task, User } from "../types";
import { rememberNote } from "./seen-notes";
import { appDatabase, type OfflineNoteSave, type OutboxItem, type SharedItem } from "./store";

export interface OutboxActions {
  /** A note sent (a share, or an offline write): the lists read again. */
  noteSaved(note: Note): void;
  taskCreated(task: Task): void;
  /** The note changed on the server since it was edited offline: the editor shows `Conflict`. */
  conflict(save: OfflineNoteSave & { noteId: number }): void;
}

export interface Outbox {
  start(user: User): void;
  stop(): void;
}

const URL_IN_TEXT = /https?:\/\/[^\s<>"']+/i;

export function setUpOutbox(actions: OutboxActions): Outbox {
  const status = byId("outbox-status");
  let user: User | null = null;
  let sending: Promise<void> | null = null;

  window.addEventListener("online", () => void send());
  navigator.serviceWorker?.addEventListener("message", (event: MessageEvent<{ type?: string }>) => {
    if (event.data?.type === "outbox") void send();
  });

  /**
   * One sender at a time across every tab and window of the app (a Web Lock): the page a share
   * navigates away from and the one it opens must not both send it.
   */
  function send(): Promise<void> {
    sending ??= (navigator.locks ? navigator.locks.request("rhizome-outbox", () => drain()) : drain()).finally(() => (sending = null));
    return sending;
  }

  async function drain() {
    for (;;) {
      if (!user || !readToken()) return;
      const items = await waiting();
      const next = items.find((item) => item.kind === "share" || item.userId === user!.id);
      if (!next) return;
      try {
        status.textContent = await deliver(next, user);
      } catch (failure) {
        // Not sent: offline, the server down or busy, or the login gone — it waits for the next try.
        if (!(failure instanceof ApiError) || failure.status === 401 || failure.status === 429 || failure.status >= 500) return;
        status.textContent = `Something shared could not be saved: ${failureText(failure)}`;
      }
      await (await appDatabase()).delete("outbox", next.id!);
    }
  }

  async function deliver(item: OutboxItem, owner: User): Promise<string> {
    if (item.kind === "share") return deliverShare(item.share);
    const save = item.note;
    if (save.noteId === null) {
      const note = await request<Note>("POST", "/api/notes", { json: { title: save.title, content: save.content, tags: save.tags } });
      await rememberNote(owner.id, note);
      actions.noteSaved(note);
      return `“${note.title}”, written offline, is saved.`;
    }
    try {
      const note = await request<Note>("PUT", `/api/notes/${save.noteId}`, { json: { title: save.title, content: save.content, tags: save.tags, expected_updated_at: save.expectedUpdatedAt ?? undefined } });
      await rememberNote(owner.id, note);
      actions.noteSaved(note);
      return `“${note.title}”, edited offline, is saved.`;
    } catch (failure) {
      if (!(failure instanceof ApiError && failure.status === 409)) throw failure;
      actions.conflict({ ...save, noteId: save.noteId });
      return `“${save.title}” was changed elsewhere while you were offline: choose which text to keep.`;
    }
  }

  async function deliverShare(share: SharedItem): Promise<string> {
    const said: string[] = [];
    const pictures: string[] = [];
    for (const file of share.files) {
      const query = `title=${encodeURIComponent(share.title || file.name)}&filename=${encodeURIComponent(file.name)}`;
      if (file.type.startsWith("image/")) {
        const stored = await upload<{ url: string }>("/api/files", file);
        pictures.push(`![${file.name.replace(/[[\]]/g, "")}](${stored.url})`);
      } else if (file.type.startsWith("audio/") || file.type === "video/mp4") {
        actions.taskCreated(await upload<Task>(`/api/tasks/audio?${query}`, file));
        said.push("Saved to Imports");
      } else if (file.type === "application/pdf") {
        actions.taskCreated(await upload<Task>(`/api/tasks/document?${query}`, file));
        said.push("Saved to Imports");
      }
    }
    const link = share.url || URL_IN_TEXT.exec(share.text)?.[0] || "";
    if (pictures.length > 0) {
      const content = [share.text && share.text !== link ? share.text : "", ...pictures, link ? `Source: <${link}>` : ""].filter(Boolean).join("\n\n");
      const note = await request<Note>("POST", "/api/notes", { json: { title: titleOf(share) || "Shared pictures", content, tags: ["shared"] } });
      actions.noteSaved(note);
      said.push("Saved as a note");
    } else if (link) {
      actions.taskCreated(await request<Task>("POST", "/api/tasks", { json: { url: link } }));
      said.push("Saved to Imports");
    } else if (share.text.trim()) {
      const note = await request<Note>("POST", "/api/notes", { json: { title: titleOf(share), content: share.text, tags: ["shared"] } });
      actions.noteSaved(note);
      said.push("Saved as a note");
    }
    return [...new Set(said)].join("; ") || "Nothing in that share could be saved (only links, text, pictures, recordings and PDFs can).";
  }

  async function waiting(): Promise<OutboxItem[]> {
    try {
      return await (await appDatabase()).getAll("outbox");
    } catch {
      return [];
    }
  }

  return {
    start(next) {
      user = next;
      void send();
    },
    stop() {
      user = null;
      status.textContent = "";
    },
  };
}

/** The title a share gives, else the first line of its text, cut to the note's 500 characters. */
function titleOf(share: SharedItem): string {
  const line = share.title.trim() || share.text.trim().split("\n", 1)[0]!.trim();
  return line.slice(0, 500);
}

