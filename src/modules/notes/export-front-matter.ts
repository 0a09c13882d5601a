import { dump } from "js-yaml";
import type { NoteSource } from "./schemas";

// js-yaml rather than the `yaml` package: it writes front matter about four times faster (10
// against 43 µs a note). No anchors (`noRefs`) and no line folding (`lineWidth: -1`): each note's front matter is plain,
// standalone YAML with the title on one line. js-yaml quotes what YAML 1.1 readers would take for
// booleans or dates.
const OPTIONS = { noRefs: true, lineWidth: -1 } as const;

// A block mapping's entries are written one after another, each as it would be alone, so the front
// matter is the concatenation of one-key dumps. That lets the common values skip js-yaml, which
// was half of an export's time: these shortcuts write exactly what it writes (the tests compare).

/** Plain in js-yaml: a letter first, then characters that are never indicators mid-scalar. */
const PLAIN = /^[A-Za-z](?:[A-Za-z0-9 ()*.,_/+-]*[A-Za-z0-9()*._/+])?$/;
/**
 * Of those, the words a YAML 1.2 or 1.1 reader takes for a boolean or null (`yes`, `Off`, `NULL`,
 * `n`): js-yaml quotes them. No other scalar that starts with a letter is a number or a date.
 */
const RESERVED_WORDS = new Set(["true", "false", "null", "y", "yes", "n", "no", "on", "off"].flatMap((word) => [word, word[0]!.toUpperCase() + word.slice(1), word.toUpperCase()]));
/**
 * Printable ASCII on one line whose first character YAML never lets start a plain scalar (an
 * indicator, a quote or a space): js-yaml single-quotes it, doubling any single quote. Markdown
 * titles that open with emphasis (`**Bold** words`) are common, and each cost a js-yaml call.
 */
const QUOTED_TITLE = /^[ \-?:,[\]{}#&*!|=>'"%@`][\x20-\x7E]*$/;
/** `toISOString` of a date in years 0000..9999: a YAML timestamp, so js-yaml single-quotes it. */
const ISO_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const TAG_CACHE_LIMIT = 10_000;
const dumpedTags = new Map<string, string>();

export interface FrontMatterNote {
  id: number;
  title: string;
  /** The stored JSON array. */
  tags: string;
  createdAt: number;
  updatedAt: number;
}

/** The YAML between the `---` lines of an exported note, ending in a newline. */
export function exportFrontMatter(note: FrontMatterNote, source: NoteSource): string {
  let yaml = `id: ${note.id}\n${titleLine(note.title)}${tagLines(note.tags)}`;
  yaml += timestampLine("created_at", new Date(note.createdAt).toISOString());
  yaml += timestampLine("updated_at", new Date(note.updatedAt).toISOString());
  // Only imported notes carry where they came from.
  if (source) yaml += dump({ source_platform: source.platform, source_url: source.url, author: source.author, published_at: source.published_at }, OPTIONS);
  return yaml;
}

/** Written as it is, as js-yaml writes it. */
function isPlain(value: string): boolean {
  return PLAIN.test(value) && !RESERVED_WORDS.has(value);
}

function titleLine(title: string): string {
  if (isPlain(title)) return `title: ${title}\n`;
  if (QUOTED_TITLE.test(title)) return `title: '${title.replaceAll("'", "''")}'\n`;
  return dump({ title }, OPTIONS);
}

/** The same few tag lists recur across an account's notes. Tags are mostly single words: plain. */
function tagLines(tags: string): string {
  let lines = dumpedTags.get(tags);
  if (lines === undefined) {
    const list = JSON.parse(tags) as string[];
    if (list.length === 0) lines = "tags: []\n";
    else if (list.every(isPlain)) lines = `tags:\n${list.map((tag) => `  - ${tag}\n`).join("")}`;
    else lines = dump({ tags: list }, OPTIONS);
    if (dumpedTags.size >= TAG_CACHE_LIMIT) dumpedTags.clear();
    dumpedTags.set(tags, lines);
  }
  return lines;
}

function timestampLine(key: string, iso: string): string {
  return ISO_TIMESTAMP.test(iso) ? `${key}: '${iso}'\n` : dump({ [key]: iso }, OPTIONS);
}
