/** Markdown cut at its last paragraph break under `maxBytes` of UTF-8; `cut` says whether anything was left out. */
export function fitMarkdown(markdown: string, maxBytes: number): { markdown: string; cut: boolean } {
  if (Buffer.byteLength(markdown, "utf8") <= maxBytes) return { markdown, cut: false };
  const head = markdown.slice(0, utf8Prefix(markdown, maxBytes));
  // The room may end right where a paragraph does.
  const paragraph = /^\s*\n/.test(markdown.slice(head.length, head.length + 4)) ? head.length : head.lastIndexOf("\n\n");
  // A document of one huge paragraph is cut inside it rather than emptied.
  return { markdown: (paragraph > head.length / 2 ? head.slice(0, paragraph) : head).trimEnd(), cut: true };
}

/** How many UTF-16 units of `text` fit in `maxBytes` of UTF-8, never splitting a surrogate pair. */
function utf8Prefix(text: string, maxBytes: number): number {
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.codePointAt(index)!;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) break;
    bytes += size;
    index += code >= 0x10000 ? 2 : 1;
  }
  return index;
}
