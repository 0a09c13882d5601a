// A note's full text in the page (GET /api/notes/{id}), its Markdown rendered by markdown.ts.
import { ApiError, getBlob } from "./api";
import { button, byId, make } from "./dom";
import { renderMarkdown } from "./markdown";
import { sourceLine } from "./note-source";
import { readNote } from "./offline/read-notes";
import { setUpNoteHistory } from "./note-history";
import { setUpRelatedNotes } from "./related-notes";
import { setUpShareLinks } from "./share-links";
import type { Note } from "./types";

/** The file name endings of the files a note links to (documents' originals, pictures). */
const DOWNLOAD_EXTENSIONS: Record<string, string> = {
  "application/pdf": "pdf",
  "application/epub+zip": "epub",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "text/markdown": "md",
  "text/plain": "txt",
  "text/html": "html",
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/avif": "avif",
};

export interface NoteView {
  open(id: number, quote?: string): Promise<void>;
  close(): void;
  /** The note on show (null while none is, or while it loads). */
  current(): Note | null;
  /** A line above the note's text (a wikilink that leads nowhere), or "" to remove it. */
  say(message: string, action?: HTMLElement): void;
}

export function setUpNoteView(options: { edit(note: Note): void; closed?(): void; mayOpen?(): boolean }): NoteView {
  const article = byId("note");
  const title = byId("note-title");
  const tags = byId("note-tags");
  const body = byId("note-body");
  const message = byId("note-message");
  let opening = 0;
  let shown: Note | null = null;
  // Blob URLs hold their bytes until revoked: those of the note on show, let go when it changes.
  let blobUrls: string[] = [];
  const releasePictures = () => {
    for (const url of blobUrls) URL.revokeObjectURL(url);
    blobUrls = [];
  };

  const say = (text: string, action?: HTMLElement) => {
    message.replaceChildren(text);
    if (action) message.append(" ", action);
    message.hidden = text === "";
  };
  const close = () => {
    opening++;
    shown = null;
    say("");
    article.hidden = true;
    releasePictures();
    history.reset();
    share.reset();
    related.reset();
  };
  const history = setUpNoteHistory({
    // An earlier version shown in place of the note, under a banner saying which it is.
    version(note, version, content) {
      const attempt = ++opening;
      releasePictures();
      const banner = make("p", `Version ${version} of “${note.title}”, as it was. `, "version-banner");
      banner.append(button("Back to the note", () => void open(note.id)));
      body.replaceChildren(banner, renderMarkdown(content));
      showPictures(attempt);
    },
    note: (id) => void open(id),
  });

  const share = setUpShareLinks(byId("note-history"));
  const related = setUpRelatedNotes(article, (id) => void open(id));

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
  // A link to a stored file (a document's original) needs the token: fetched, then saved as a download.
  body.addEventListener("click", (event) => {
    const link = (event.target as Element).closest<HTMLAnchorElement>("a[data-file]");
    if (!link) return;
    event.preventDefault();
    const path = link.dataset.file!;
    getBlob(path).then(
      (blob) => {
        const url = URL.createObjectURL(blob);
        const save = make("a");
        save.href = url;
        save.download = `${path.split("/").pop()}.${DOWNLOAD_EXTENSIONS[blob.type.split(";")[0]!] ?? "bin"}`;
        save.click();
        setTimeout(() => URL.revokeObjectURL(url), 60_000);
      },
      () => say("The file could not be downloaded."),
    );
  });
  byId("close-note").addEventListener("click", () => {
    close();
    options.closed?.();
  });
  byId("edit-note").addEventListener("click", () => shown && options.edit(shown));

  async function open(id: number, quote?: string) {
    if (options.mayOpen && !options.mayOpen()) return;
    const attempt = ++opening;
    article.hidden = false;
    delete article.dataset.note;
    shown = null;
    say("");
    title.textContent = "Loading the note…";
    tags.textContent = "";
    body.replaceChildren();
    releasePictures();
    share.reset();
    try {
      const { note, kept } = await readNote(id);
      if (attempt !== opening) return;
      shown = note;
      if (kept) say("Offline: this is the copy kept on this device.");
      title.textContent = note.title;
      tags.textContent = note.tags.length ? `Tags: ${note.tags.join(", ")}` : "";
      if (note.source) tags.append(sourceLine(note.source));
      body.replaceChildren(renderMarkdown(note.content));
      // Which note is drawn (the benchmark and tests wait for it).
      article.dataset.note = String(note.id);
      showPictures(attempt);
      // Offline, the note's history, links and neighbours cannot be read: the kept text alone shows.
      if (!kept) {
        void history.load(note);
        void share.load(note);
        void related.load(note.id);
      }
      const marked = quote ? markQuote(body, quote) : null;
      title.tabIndex = -1;
      title.focus();
      article.scrollIntoView({ block: "nearest" });
      marked?.scrollIntoView({ block: "nearest" });
    } catch (error) {
      if (attempt !== opening) return;
      title.textContent = "The note could not be opened";
      body.replaceChildren(make("p", error instanceof ApiError ? error.message : "The server could not be reached.", "error"));
    }
  }
  return { open, close, current: () => shown, say };
}

/**
 * Puts the cited quote inside a <mark>: where the rendered note holds it in one text node (most
 * sentences), there; otherwise (Markdown split it across elements) in a cited block above the note.
 */
function markQuote(body: HTMLElement, quote: string): HTMLElement {
  const wanted = quote.replace(/\s+/g, " ").trim();
  const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
    const at = node.data.indexOf(quote);
    if (at < 0) continue;
    const mark = make("mark");
    const middle = node.splitText(at);
    middle.splitText(quote.length);
    middle.replaceWith(mark);
    mark.append(middle);
    return mark;
  }
  const block = make("blockquote", undefined, "cited");
  const mark = make("mark", wanted);
  block.append(mark);
  body.prepend(block);
  return mark;
}
