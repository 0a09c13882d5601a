/** The heading of the section that holds the pictures' text, at the note's end. */
export const TEXT_IN_PICTURES = "## Text in pictures";
/** Fewer characters than this (spaces aside) is noise, not text worth a paragraph. */
export const MIN_TEXT_CHARACTERS = 4;

export interface NotePicture {
  fileId: number;
  /** 1-based, among the note's pictures in order (each file counted once). */
  position: number;
  /** It is a PDF page without text (`[p. N]` on the line before it): its text goes right after it. */
  page: boolean;
}

export interface PictureText {
  picture: NotePicture;
  lines: string[];
}

const IMAGE = /!\[[^\]\n]*\]\(\s*<?\/api\/files\/([1-9]\d{0,15})>?(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/g;
const PAGE_MARK = /^\[p\. [^\]\n]+\]$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Each line of the note with whether it lies inside a fenced code block (whose pictures are text). */
function linesOf(markdown: string): { text: string; code: boolean }[] {
  let fence: string | null = null;
  return markdown.split("\n").map((text) => {
    const marker = FENCE.exec(text)?.[1];
    if (marker && (fence === null || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence === null ? marker : null;
      return { text, code: true };
    }
    return { text, code: fence !== null };
  });
}

/** The stored pictures a note shows (`![…](/api/files/<id>)`), in order, each file once. */
export function notePictures(markdown: string): NotePicture[] {
  const pictures: NotePicture[] = [];
  const seen = new Set<number>();
  let previous = "";
  for (const line of linesOf(markdown)) {
    if (line.code) continue;
    const trimmed = line.text.trim();
    for (const match of trimmed.matchAll(IMAGE)) {
      const fileId = Number(match[1]);
      if (seen.has(fileId)) continue;
      seen.add(fileId);
      pictures.push({ fileId, position: pictures.length + 1, page: PAGE_MARK.test(previous) && match[0] === trimmed });
    }
    if (trimmed !== "") previous = trimmed;
  }
  return pictures;
}

/** The text has enough characters to be worth writing down. */
export const worthWriting = (lines: string[]) => lines.join("").replace(/\s+/g, "").length >= MIN_TEXT_CHARACTERS;

/**
 * The note with its pictures' text written in: each page picture's text right after it (unless the
 * paragraph there already is that text), every other picture's as a paragraph of the section
 * `## Text in pictures` — rewritten where it stands, or added at the end — beginning with
 * `[picture N](/api/files/<id>)`. The section goes when no picture has text.
 */
export function withPictureTexts(markdown: string, texts: PictureText[]): string {
  let lines = linesOf(markdown);
  const start = lines.findIndex((line) => !line.code && line.text.trimEnd() === TEXT_IN_PICTURES);
  let sectionAt = lines.length;
  if (start >= 0) {
    let end = start + 1;
    while (end < lines.length && (lines[end]!.code || !/^#{1,2}\s/.test(lines[end]!.text))) end++;
    lines = [...lines.slice(0, start), ...lines.slice(end)];
    sectionAt = start;
  }
  const pages = texts.filter((text) => text.picture.page && worthWriting(text.lines)).sort((a, b) => b.picture.position - a.picture.position);
  for (const { picture, lines: read } of pages) {
    const shows = (line: { text: string; code: boolean }) => !line.code && [...line.text.matchAll(IMAGE)].some((match) => Number(match[1]) === picture.fileId);
    const at = lines.findIndex(shows);
    if (at < 0) continue;
    const paragraph = read.map(escapeLine);
    let next = at + 1;
    while (next < lines.length && lines[next]!.text.trim() === "") next++;
    if (lines.slice(next, next + paragraph.length).map((line) => line.text).join("\n") === paragraph.join("\n")) continue;
    lines.splice(at + 1, 0, ...["", ...paragraph].map((text) => ({ text, code: false })));
    if (at < sectionAt) sectionAt += paragraph.length + 1;
  }
  const out = lines.map((line) => line.text);

  const paragraphs = texts
    .filter((text) => !text.picture.page && worthWriting(text.lines))
    .sort((a, b) => a.picture.position - b.picture.position)
    .map(({ picture, lines: read }) => `[picture ${picture.position}](/api/files/${picture.fileId}) ${read.map(escapeLine).join("\n")}`);
  const before = out.slice(0, sectionAt).join("\n").trimEnd();
  const after = out.slice(sectionAt).join("\n").trim();
  const section = paragraphs.length > 0 ? `${TEXT_IN_PICTURES}\n\n${paragraphs.join("\n\n")}` : "";
  const ending = markdown.endsWith("\n") ? "\n" : "";
  return [before, section, after].filter((part) => part !== "").join("\n\n") + ending;
}

/** A line of read text as Markdown that shows it as read: no emphasis, link, HTML or block of its own. */
export function escapeLine(line: string): string {
  return line
    .trim()
    .replace(/[\\`*_[\]<>|~]/g, "\\$&")
    .replace(/^([#+=-])/, "\\$1")
    .replace(/^(\d+)([.)])/, "$1\\$2");
}
