// Where an imported note came from, as one line: the page's note view and the note an MCP App shows.
import { make } from "./dom";
import type { Note } from "./types";

/** Where an imported note came from: its platform, author and page (a link that opens elsewhere). */
export function sourceLine(source: NonNullable<Note["source"]>): HTMLElement {
  const line = make("span", ` · Imported from ${source.platform}${source.author ? `, by ${source.author}` : ""}`, "source");
  if (source.url && /^https?:\/\//i.test(source.url)) {
    const link = make("a", "the page");
    link.href = source.url;
    link.target = "_blank";
    link.rel = "noopener noreferrer";
    line.append(": ", link);
  }
  return line;
}
