import path from "node:path";
import { importedTags, importedTitle } from "../notes/note-text";
import { ARCHIVE_SOURCE, parseTime, type ArchivedNote } from "./archived-note";
import { splitFrontMatter } from "./front-matter";

/**
 * A Markdown file of a vault (Obsidian, Logseq, Joplin, Bear, Memos) as a note: Obsidian's front
 * matter conventions, inline `#tags`, the title from front matter, the first `# heading` or the
 * file name. `[[wikilinks]]` and `![[embeds]]` stay as written.
 */
export function markdownNote(entryName: string, text: string): ArchivedNote {
  const { data, body } = splitFrontMatter(text);
  const matter = data ?? {};
  const content = body.replace(/^(?:[ \t]*\r?\n)+/, "").replaceAll("\u0000", "");
  const fileTitle = path.posix.basename(entryName.replaceAll("\\", "/")).replace(/\.(md|markdown)$/i, "");
  const title = importedTitle(stringOf(matter.title) ?? "") || importedTitle(firstHeading(content) ?? "") || importedTitle(fileTitle, "Untitled");
  const tags = importedTags([...frontMatterTags(matter.tags), ...frontMatterTags(matter.tag), ...inlineTags(content)]);
  return {
    title,
    content,
    tags,
    createdAt: parseTime(matter.created ?? matter.created_at ?? matter.date),
    source: ARCHIVE_SOURCE,
    sourceKey: `archive:${entryName}`,
  };
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** `tags: [a, b]`, a YAML list, or `tags: "a, b c"`; a leading `#` is dropped. */
function frontMatterTags(value: unknown): string[] {
  const items = Array.isArray(value) ? value.filter((item) => typeof item === "string") : typeof value === "string" ? value.split(/[,\s]+/) : [];
  return items.map((tag: string) => tag.trim().replace(/^#/, "")).filter(Boolean);
}

/** Code (fenced, indented by the fence, or inline) holds no tags or headings. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?(?:^\1[^\n]*$|(?![\s\S]))/gm, "").replace(/`[^`\n]*`/g, "");
}

function firstHeading(markdown: string): string | undefined {
  return /^#[ \t]+(.+?)[ \t#]*$/m.exec(withoutCode(markdown))?.[1];
}

// A tag starts after whitespace or at a line start, holds letters, digits, `_`, `-` and `/`
// (nested tags), is not only digits (`#123` is an issue number), and ends before punctuation.
const INLINE_TAG = /(?<=^|[\s(（，。、,;；])#([\p{L}\p{N}_\-/]+)/gmu;

function inlineTags(markdown: string): string[] {
  const tags: string[] = [];
  for (const match of withoutCode(markdown).matchAll(INLINE_TAG)) {
    const tag = match[1]!.replace(/[/\-]+$/, "").replace(/^\/+/, "");
    if (tag && !/^[\p{N}_\-/]+$/u.test(tag)) tags.push(tag);
  }
  return tags;
}
