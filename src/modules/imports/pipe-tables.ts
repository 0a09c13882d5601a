import type TurndownService from "turndown";

/** Wider tables are layout, not data: left to turndown's plain text. */
const MAX_COLUMNS = 30;

/**
 * Teaches a turndown service Markdown pipe tables, for documents whose tables are data (a Word
 * document's, a book's): the header row is the table's `<thead>` (or a row of `<th>`), else its
 * first row; a cell's paragraphs are joined by `<br>`, its pipes escaped. A table holding another
 * table is layout, and stays as turndown reads it.
 */
export function addPipeTables(service: TurndownService): void {
  service.addRule("pipeTable", {
    filter: (node) => node.nodeName === "TABLE" && !(node as Element).querySelector("table"),
    replacement: (_content, node) => {
      const rows = Array.from((node as Element).querySelectorAll("tr")).map((row) => ({
        header: row.parentElement?.nodeName === "THEAD" || (row.children.length > 0 && Array.from(row.children).every((cell) => cell.nodeName === "TH")),
        cells: Array.from(row.children)
          .filter((cell) => cell.nodeName === "TD" || cell.nodeName === "TH")
          .map((cell) => cellText(service, cell)),
      }));
      const filled = rows.filter((row) => row.cells.length > 0);
      const width = Math.max(0, ...filled.map((row) => row.cells.length));
      if (filled.length === 0 || width > MAX_COLUMNS) return _content;
      const headerAt = Math.max(0, filled.findIndex((row) => row.header));
      const ordered = [filled[headerAt]!, ...filled.filter((_, index) => index !== headerAt)];
      const line = (cells: string[]) => `| ${Array.from({ length: width }, (_, i) => cells[i] ?? "").join(" | ")} |`;
      return `\n\n${[line(ordered[0]!.cells), line(Array(width).fill("---")), ...ordered.slice(1).map((row) => line(row.cells))].join("\n")}\n\n`;
    },
  });
}

/** A cell's Markdown on one line: paragraphs and line breaks as `<br>`, pipes escaped. */
function cellText(service: TurndownService, cell: Element): string {
  const markdown = service.turndown(cell as unknown as TurndownService.Node);
  return markdown
    .split(/\n+/)
    .map((part) => part.trim())
    .filter(Boolean)
    .join("<br>")
    .replace(/\|/g, "\\|");
}
