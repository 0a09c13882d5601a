/** Markdown cut at its last paragraph break under `maxBytes`; `cut` says whether anything was left out. */
export function fitMarkdown(markdown: string, maxBytes: number): { markdown: string; cut: boolean } {
  if (Buffer.byteLength(markdown, "utf8") <= maxBytes) return { markdown, cut: false };
  // Cut by characters first (a UTF-8 character is at most 4 bytes), then to the last paragraph break.
  let head = markdown.slice(0, maxBytes);
  while (Buffer.byteLength(head, "utf8") > maxBytes) head = head.slice(0, Math.floor(head.length * 0.9));
  const paragraph = head.lastIndexOf("\n\n");
  return { markdown: (paragraph > head.length / 2 ? head.slice(0, paragraph) : head).trimEnd(), cut: true };
}
