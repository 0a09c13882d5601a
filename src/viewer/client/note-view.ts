// A note's full text in the page (GET /api/notes/{id}), its Markdown rendered by markdown.ts.
import { ApiError, get, getBlob } from "./api";
import { byId, make } from "./dom";
import { renderMarkdown } from "./markdown";
import type { Note } from "./types";

export function setUpNoteView(): { open(id: number): Promise<void>; close(): void } {
  const article = byId("note");
  const title = byId("note-title");
  const tags = byId("note-tags");
  const body = byId("note-body");
  let opening = 0;
  // Blob URLs hold their bytes until revoked: those of the note on show, let go when it changes.
  let blobUrls: string[] = [];
  const releasePictures = () => {
    for (const url of blobUrls) URL.revokeObjectURL(url);
    blobUrls = [];
  };

  const close = () => {
    opening++;
    article.hidden = true;
    releasePictures();
  };

  /** Loads the note's stored pictures (a few at a time is the browser's business) into their <img>s. */
  function showPictures(attempt: number) {
    for (const img of Array.from(body.querySelectorAll<HTMLImageElement>("img[data-file]"))) {
      getBlob(img.dataset.file!).then(
        (blob) => {
          if (attempt !== opening) return;
          const url = URL.createObjectURL(blob);
          blobUrls.push(url);
          img.src = url;
        },
        () => {
          if (attempt === opening) img.replaceWith(document.createTextNode(`[image: ${img.alt || "not available"}]`));
        },
      );
    }
  }
  byId("close-note").addEventListener("click", close);

  async function open(id: number) {
    const attempt = ++opening;
    article.hidden = false;
    title.textContent = "Loading the note…";
    tags.textContent = "";
    body.replaceChildren();
    releasePictures();
    try {
      const note = await get<Note>(`/api/notes/${id}`);
      if (attempt !== opening) return;
      title.textContent = note.title;
      tags.textContent = note.tags.length ? `Tags: ${note.tags.join(", ")}` : "";
      body.replaceChildren(renderMarkdown(note.content));
      showPictures(attempt);
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
