/** `/api/files/{id}` as notes write it, not followed by more of a number or a path. */
const FILE_LINK = /\/api\/files\/([1-9]\d{0,15})(?![\w/.-])/g;

/** The ids of stored files a note's Markdown refers to, each once. */
export function referencedFileIds(markdown: string): number[] {
  const ids = new Set<number>();
  for (const match of markdown.matchAll(FILE_LINK)) ids.add(Number(match[1]));
  return [...ids];
}
