/** Imported titles are cut to this many UTF-16 code units (the notes' title limit). */
export const MAX_IMPORTED_TITLE_UNITS = 500;

/** Control and bidi-override characters garble or spoof a title in lists. */
const INVISIBLE = /[\u0000-\u0008\u000e-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A title read from a page or a pasted text, as one line: invisible controls dropped, whitespace
 * runs shortened to one space, trimmed, and cut to 500 UTF-16 units without splitting a surrogate
 * pair. "" when nothing is left, so callers can fall back.
 */
export function cutImportedTitle(text: string): string {
  // Only the start can survive the cut: a megabyte-long "title" is not cleaned whole.
  const line = text
    .slice(0, 8 * MAX_IMPORTED_TITLE_UNITS)
    .replace(INVISIBLE, "")
    .replace(/\s+/g, " ")
    .trim();
  if (line.length <= MAX_IMPORTED_TITLE_UNITS) return line;
  const last = line.charCodeAt(MAX_IMPORTED_TITLE_UNITS - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? MAX_IMPORTED_TITLE_UNITS - 1 : MAX_IMPORTED_TITLE_UNITS;
  return line.slice(0, end).trimEnd();
}
