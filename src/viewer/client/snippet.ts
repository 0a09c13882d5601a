// A search hit's snippet with its matched words marked: used by the page's search and the notes
// list, and by the search results an MCP App shows in a conversation.
import { make } from "./dom";

/** The snippet as text nodes, its matched terms in <mark>: the note's text is never parsed as HTML. */
export function snippetWithMarks(snippet: string, highlights: [number, number][]): HTMLElement {
  const line = make("small");
  let at = 0;
  for (const [start, end] of [...highlights].sort((a, b) => a[0] - b[0])) {
    if (start < at || end > snippet.length) continue;
    line.append(snippet.slice(at, start), make("mark", snippet.slice(start, end)));
    at = end;
  }
  line.append(snippet.slice(at));
  return line;
}
