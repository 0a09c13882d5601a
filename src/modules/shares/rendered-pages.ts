import { renderSharedMarkdown } from "./render-markdown";
import { sharePage } from "./share-page";

/** Enough for a few hundred typical pages, or a dozen of the largest (1 MiB of Markdown each). */
export const RENDERED_PAGES_MAX_BYTES = 32 * 1024 * 1024;

interface Entry {
  updatedAt: number;
  html: string;
  bytes: number;
}

/**
 * Share pages as rendered, by link and the note's `updated_at`: an anonymous reader's hit costs a
 * lookup, not a Markdown render of up to 1 MiB, and an edit (which moves `updated_at`) shows at
 * once. The least recently read pages go first once their strings pass `maxBytes`.
 */
export class RenderedPages {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  /** How many pages were rendered rather than found: what a test (or an operator) watches. */
  renders = 0;

  constructor(private readonly maxBytes = RENDERED_PAGES_MAX_BYTES) {}

  /** The cached page of this link if the note has not changed since, else null. */
  find(token: string, updatedAt: number): string | null {
    const entry = this.entries.get(token);
    if (!entry || entry.updatedAt !== updatedAt) return null;
    // Map order is the recency order: a hit moves the page to the back.
    this.entries.delete(token);
    this.entries.set(token, entry);
    return entry.html;
  }

  /** Renders the note's page for this link and keeps it. */
  render(note: { token: string; title: string; content: string; updatedAt: number }): string {
    this.renders++;
    const html = sharePage(note, renderSharedMarkdown(note.content, note.token));
    this.keep(note.token, { updatedAt: note.updatedAt, html, bytes: html.length * 2 });
    return html;
  }

  private keep(token: string, entry: Entry): void {
    this.drop(token);
    if (entry.bytes > this.maxBytes) return;
    this.entries.set(token, entry);
    this.bytes += entry.bytes;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(oldest);
    }
  }

  private drop(token: string): void {
    const entry = this.entries.get(token);
    if (!entry) return;
    this.entries.delete(token);
    this.bytes -= entry.bytes;
  }

  get size(): { pages: number; bytes: number } {
    return { pages: this.entries.size, bytes: this.bytes };
  }
}
