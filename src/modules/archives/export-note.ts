import { cutToUnits, MAX_TAG_UNITS, MAX_TAGS, MAX_TITLE_UNITS, normaliseLine } from "../notes/note-text";
import type { NoteSource } from "../notes/schemas";
import { ARCHIVE_SOURCE, parseTime, type ArchivedNote } from "./archived-note";
import { splitExportFrontMatter } from "./front-matter";

/** Our export's files sit at the archive's root, one `<slug>-<id>.md` each. */
export function isRootMarkdown(name: string): boolean {
  return !name.includes("/") && !name.includes("\\") && /\.md$/i.test(name);
}

/** A file of our own export: front matter holding an integer `id`, a `title` and a `created_at`. */
export function isExportFile(text: string): boolean {
  const { data } = splitExportFrontMatter(text);
  return data !== null && Number.isSafeInteger(data.id) && (data.id as number) > 0 && typeof data.title === "string" && typeof data.created_at === "string";
}

/**
 * A file of our export as the note it was: the front matter alone gives title, tags, `created_at`
 * and source (no inline tags), and the content is exactly what follows the closing `---` line and
 * the blank line the export writes after it. Titles and tags keep the notes' rules, not the
 * stricter import cleaning, so a note written here comes back exactly as it was.
 */
export function exportNote(text: string): ArchivedNote {
  const { data, body } = splitExportFrontMatter(text);
  const matter = data!;
  const id = matter.id as number;
  const content = body.startsWith("\n") ? body.slice(1) : body;
  const title = cutToUnits(normaliseLine(String(matter.title)), MAX_TITLE_UNITS).trimEnd() || `Note ${id}`;
  const rawTags = Array.isArray(matter.tags) ? matter.tags.filter((tag) => tag !== null && typeof tag !== "object").map(String) : [];
  const tags = [...new Set(rawTags.map(normaliseLine).filter((tag) => tag.length > 0 && tag.length <= MAX_TAG_UNITS))].slice(0, MAX_TAGS);
  const source = exportedSource(matter);
  return {
    title,
    content,
    tags,
    createdAt: parseTime(matter.created_at),
    source: source ?? ARCHIVE_SOURCE,
    sourceKey: `export:${id}`,
    exported: { id, updatedAt: parseTime(matter.updated_at), source },
  };
}

/** The `source_*` fields of an imported note's file; null for a note written here. */
function exportedSource(matter: Record<string, unknown>): NoteSource {
  if (typeof matter.source_platform !== "string" || !matter.source_platform) return null;
  const text = (value: unknown) => (typeof value === "string" ? value : null);
  const published = parseTime(matter.published_at);
  return {
    platform: matter.source_platform,
    url: text(matter.source_url),
    author: text(matter.author),
    published_at: published === null ? null : new Date(published).toISOString(),
  };
}
