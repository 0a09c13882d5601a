import type { PdfLine } from "./page-lines";

/** Lines looked at for a running header (the topmost) and footer (the lowest) on each page. */
const EDGE_LINES = 2;
/** Shorter documents have no "most pages" to judge by. */
const MIN_PAGES = 3;
/** "Most pages": books alternate the book's and the chapter's title, so each is on about half. */
const SHARE_OF_PAGES = 0.4;

interface Candidate {
  page: number;
  line: PdfLine;
  key: string;
}

/**
 * The headers and footers repeated on most pages (a title, a page number, "Page 3 of 10"), as a set
 * of the lines to drop. A line counts when the same text (its page number read as a placeholder)
 * sits at the same edge, at about the same height, on at least 40 % of the pages.
 */
export function runningLines(pages: readonly (readonly PdfLine[])[], pageNames: readonly string[]): Set<PdfLine> {
  const running = new Set<PdfLine>();
  if (pages.length < MIN_PAGES) return running;
  const groups = new Map<string, Candidate[]>();
  pages.forEach((lines, page) => {
    const byHeight = [...lines].sort((a, b) => b.y - a.y);
    const top = byHeight.slice(0, EDGE_LINES);
    // A page of few lines (a picture under a header and a footer) has lines at both edges at once.
    const bottom = byHeight.slice(-EDGE_LINES);
    for (const [edge, edgeLines] of [["top", top], ["bottom", bottom]] as const) {
      for (const line of edgeLines) {
        const key = `${edge}\u0000${pattern(line.text, page, pageNames[page])}`;
        const group = groups.get(key) ?? [];
        group.push({ page, line, key });
        groups.set(key, group);
      }
    }
  });
  const needed = Math.max(2, Math.ceil(pages.length * SHARE_OF_PAGES));
  const repeated = new Set<PdfLine>();
  for (const group of groups.values()) {
    // At the same height: a heading that happens to open many pages sits wherever its page starts.
    const height = median(group.map((candidate) => candidate.line.y));
    const aligned = group.filter((candidate) => Math.abs(candidate.line.y - height) <= Math.max(2, candidate.line.size * 0.5));
    if (new Set(aligned.map((candidate) => candidate.page)).size >= needed) for (const candidate of aligned) repeated.add(candidate.line);
  }
  // A header or footer starts at the page's edge: a repeated line further in counts only below (or above) one.
  for (const lines of pages) {
    const byHeight = [...lines].sort((a, b) => b.y - a.y);
    for (const edge of [byHeight.slice(0, EDGE_LINES), byHeight.slice(-EDGE_LINES).reverse()]) {
      for (const line of edge) {
        if (!repeated.has(line)) break;
        running.add(line);
      }
    }
  }
  return running;
}

/**
 * The line's text with its page's label (when the PDF has labels) or its first number as `#`: a
 * printed page number runs a fixed distance from the page's position (1 on the third page after a
 * cover and a contents page), so the distance is kept in the key and only a true page number matches
 * from page to page.
 */
function pattern(text: string, page: number, name: string | undefined): string {
  const key = text.toLowerCase().replace(/\s+/g, " ").trim();
  if (name && !/^\d+$/.test(name)) {
    const word = new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(name.toLowerCase())}(?![\\p{L}\\p{N}])`, "u");
    if (word.test(key)) return key.replace(word, "$1#");
  }
  return key.replace(/(^|[^\p{L}\p{N}])(\d{1,5})(?![\p{L}\p{N}])/u, (_whole, before: string, digits: string) => `${before}#${Number(digits) - page - 1}`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
