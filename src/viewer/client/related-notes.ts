// The notes nearest the open note in meaning (GET /api/notes/{id}/related), listed under it; each opens in
// the page. It builds its own section right after the note's <article> (shown with it), so the page's
// markup needs no change and the note's own content stays the article's alone.
import { ApiError, get } from "./api";
import { button, make } from "./dom";

interface RelatedNote {
  id: number;
  title: string;
  excerpt: string;
  score: number;
}

export function setUpRelatedNotes(article: HTMLElement, openNote: (id: number) => void): { load(noteId: number): Promise<void>; reset(): void } {
  const section = make("section", undefined, "related-notes");
  // views.ts moves it with the article from one view to the other.
  section.id = "related-notes";
  section.setAttribute("aria-labelledby", "related-notes-title");
  const heading = make("h3", "Related notes");
  heading.id = "related-notes-title";
  const hint = make("p", "", "hint");
  hint.setAttribute("aria-live", "polite");
  const list = make("ul", undefined, "related-list");
  list.setAttribute("aria-label", "Related notes");
  section.append(heading, hint, list);
  section.hidden = true;
  article.after(section);
  let loading = 0;

  async function load(noteId: number) {
    const attempt = ++loading;
    section.hidden = false;
    list.replaceChildren();
    hint.textContent = "Looking for related notes…";
    try {
      const related = await get<{ items: RelatedNote[] }>(`/api/notes/${noteId}/related?limit=8`);
      if (attempt !== loading) return;
      hint.textContent = related.items.length === 0 ? "No related notes yet." : "";
      for (const note of related.items) {
        const entry = make("li");
        const open = button(note.title || "(untitled)", () => openNote(note.id), "link");
        const excerpt = make("small", note.excerpt);
        excerpt.style.display = "block";
        entry.append(open, excerpt);
        list.append(entry);
      }
    } catch (error) {
      if (attempt === loading) hint.textContent = error instanceof ApiError ? error.message : "Related notes could not be read.";
    }
  }

  return {
    load,
    reset() {
      loading++;
      section.hidden = true;
      list.replaceChildren();
      hint.textContent = "";
    },
  };
}
