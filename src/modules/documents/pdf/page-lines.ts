import { firstCharacter, isUnspacedScript, lastCharacter, unifyRadicals } from "../cjk-text";

/** A run of text as PDF.js reads it from a page: where it starts (PDF user space, y upwards), how wide and how large. */
export interface PdfTextRun {
  text: string;
  x: number;
  y: number;
  width: number;
  size: number;
  /** PDF.js saw the line end after this run. */
  endsLine: boolean;
}

/** One line of a page: its text and where it sits. */
export interface PdfLine {
  text: string;
  x: number;
  y: number;
  /** Where its last run ends. */
  right: number;
  size: number;
}

/** PDF.js's text item, as far as it is read here. */
interface TextItemLike {
  str?: string;
  transform?: number[];
  width?: number;
  height?: number;
  hasEOL?: boolean;
}

// Control characters are no text (a font's unmapped glyphs come out as them), line breaks included.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\ufffe\uffff]/g;

/** PDF.js's text items as runs; marked-content markers and malformed items are left out. */
export function textRuns(items: readonly unknown[]): PdfTextRun[] {
  const runs: PdfTextRun[] = [];
  for (const raw of items) {
    const item = raw as TextItemLike;
    if (typeof item.str !== "string" || !Array.isArray(item.transform) || item.transform.length < 6) continue;
    const [a = 0, b = 0, c = 0, d = 0, x = 0, y = 0] = item.transform;
    // The text's height on the page, whatever the matrix (a rotated or mirrored run has it in b or c).
    const size = Math.hypot(c, d) || Math.hypot(a, b) || item.height || 1;
    runs.push({ text: unifyRadicals(item.str.replace(CONTROLS, " ")), x, y, width: Math.abs(item.width ?? 0), size, endsLine: item.hasEOL === true });
  }
  return runs;
}

/**
 * The page's runs gathered into lines, in the order the page draws them (its reading order for
 * nearly every producer: two columns are drawn one after the other). A run starts a new line when
 * the last one ended a line, or sits on another baseline, or goes back to the left.
 */
export function pageLines(runs: readonly PdfTextRun[]): PdfLine[] {
  const lines: PdfLine[] = [];
  let line: PdfLine | null = null;
  let lineEnded = false;
  let space = false;
  for (const run of runs) {
    if (run.text.trim() === "") {
      // A space on its own between words, or PDF.js's marker of a line's end.
      if (line && !lineEnded && run.text.length > 0) space = true;
      if (run.endsLine) lineEnded = true;
      continue;
    }
    if (line && !lineEnded && sameLine(line, run)) {
      if (space || needsSpace(line, run)) line.text = `${line.text.trimEnd()} ${run.text.trimStart()}`;
      else line.text += run.text;
      line.right = Math.max(line.right, run.x + run.width);
      line.size = Math.max(line.size, run.size);
    } else {
      if (line) lines.push(finished(line));
      line = { text: run.text, x: run.x, y: run.y, right: run.x + run.width, size: run.size };
    }
    space = false;
    lineEnded = run.endsLine;
  }
  if (line) lines.push(finished(line));
  return lines.filter((each) => each.text !== "");
}

function finished(line: PdfLine): PdfLine {
  return { ...line, text: line.text.replace(/\s+/g, " ").trim() };
}

function sameLine(line: PdfLine, run: PdfTextRun): boolean {
  const size = Math.max(line.size, run.size);
  // A superscript or a subscript stays on its line; a run far to the left of the line's end starts another.
  return Math.abs(run.y - line.y) < 0.5 * size && run.x > line.right - 1.5 * size;
}

/** Words are set apart by a gap, not a space character, in many PDFs; ideographs never are. */
function needsSpace(line: PdfLine, run: PdfTextRun): boolean {
  if (/\s$/.test(line.text) || /^\s/.test(run.text)) return false;
  const before = lastCharacter(line.text);
  const after = firstCharacter(run.text);
  if (isUnspacedScript(before) && isUnspacedScript(after)) return false;
  return run.x - line.right > 0.15 * Math.min(line.size, run.size);
}
