// A note's full text in the page (GET /api/notes/{id}), its Markdown rendered by markdown.ts.
import { ApiError, get } from "./api";
import { byId, make } from "./dom";
import { renderMarkdown } from "./markdown";
import type { Note } from "./types";

export function setUpNoteView(): { open(id: number): Promise<void>; close(): void } {
  const article = byId("note");
  const title = byId("note-title");
  const tags = byId("note-tags");
  const body = byId("note-body");
  let opening = 0;

  const close = () => {
    opening++;
    article.hidden = true;
  };
  byId("close-note").addEventListener("click", close);

  async function open(id: number) {
    const attempt = ++opening;
    article.hidden = false;
    title.textContent = "Loading the note…";
    tags.textContent = "";
    body.replaceChildren();
    try {
      const note = await get<Note>(`/api/notes/${id}`);
      if (attempt !== opening) return;
      title.textContent = note.title;
      tags.textContent = note.tags.length ? `Tags: ${note.tags.join(", ")}` : "";
      body.replaceChildren(renderMarkdown(note.content));
      title.tabIndex = -1;
      title.focus();
      article.scrollIntoView({ block: "nearest" });
    } catch (error) {
      if (attempt !== opening) return;
      title.textContent = "The note could not be opened";
      body.replaceChildren(make("p", error instanceof ApiError ? error.message : "The server could not be reached.", "error"));
    }
  }
  return { open, close };
}
