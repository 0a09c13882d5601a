// The notes' rules for titles and tags, for notes written here and imported alike, so an imported
// note can be sent back with PUT unchanged. Lengths are UTF-16 code units, as `string.length` counts.
export const MAX_TITLE_UNITS = 500;
export const MAX_TAG_UNITS = 64;
export const MAX_TAGS = 32;

const LINE_BREAKS = /[\t\n\r]/g;
const OTHER_CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

/** Tab, LF and CR become a space, other C0 controls and DEL are removed, then the value is trimmed. */
export function normaliseLine(value: string): string {
  return value.replace(LINE_BREAKS, " ").replace(OTHER_CONTROLS, "").trim();
}

/** At most `maxUnits` UTF-16 code units, never ending in half of a surrogate pair. */
export function cutToUnits(value: string, maxUnits: number): string {
  if (value.length <= maxUnits) return value;
  const last = value.charCodeAt(maxUnits - 1);
  return value.slice(0, last >= 0xd800 && last <= 0xdbff ? maxUnits - 1 : maxUnits);
}

/** Bidi overrides and isolates can make a title read as something else in a list. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/** A page's text as one line: the notes' rule, bidi controls dropped, runs of whitespace (line breaks in markup) shortened to one space. */
function importedLine(value: string): string {
  return normaliseLine(value.replace(BIDI_CONTROLS, "")).replace(/\s+/g, " ");
}

/**
 * An imported title: normalised, cut to 500 units (trimmed again after the cut); `fallback` ("" by
 * default, so a parser can try its next candidate) when nothing is left.
 */
export function importedTitle(raw: string, fallback = ""): string {
  // Only the start can survive the cut: a megabyte-long "title" is not cleaned whole.
  return cutToUnits(importedLine(raw.slice(0, 8 * MAX_TITLE_UNITS)), MAX_TITLE_UNITS).trimEnd() || fallback;
}

/**
 * Imported tags: normalised; a tag longer than 64 units is dropped (a cut hashtag would be another
 * tag); empty ones and duplicates are dropped, order kept, at most 32.
 */
export function importedTags(raw: string[]): string[] {
  const tags = raw.map(importedLine).filter((tag) => tag.length > 0 && tag.length <= MAX_TAG_UNITS);
  return [...new Set(tags)].slice(0, MAX_TAGS);
}

/** Free text read from a page (an author's name): one normalised line of at most 500 units, or null. */
export function importedText(raw: string | undefined): string | null {
  return cutToUnits(importedLine(raw ?? ""), MAX_TITLE_UNITS).trimEnd() || null;
}
