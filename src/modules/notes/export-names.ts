// Entry names that are safe on every OS and in every unzip tool: the ZIP's names are relative,
// use no separators, never start with a dot, and end in the note id, so they are unique even after
// case folding. Rules after RELIABILITY §4 / sanitize-filename.

// One pass marks each run of unsafe characters, white space and dashes, which becomes one dash; the
// ends lose their dots and dashes. (Step by step: unsafe characters to spaces, trim, white space
// runs to a dash, dash runs to one; the test checks the two agree. The steps showed as ~10% of a
// cold export's profile; measured alone, one pass takes about two thirds of their time.)
const SEPARATORS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\s/\\?<>:*|"'`#%&{}$!@+=^~;,[\]()-]+/gu;
const ENDS = /^[.\-]+|[.\-]+$/g;
const MAX_SLUG_BYTES = 120;

export function slugForTitle(title: string): string {
  const slug = title.normalize("NFKC").toLowerCase().replace(SEPARATORS, "-").replace(ENDS, "");
  return truncateUtf8(slug, MAX_SLUG_BYTES).replace(/[.\-]+$/g, "") || "note";
}

export function exportEntryName(note: { id: number; title: string }): string {
  return `${slugForTitle(note.title)}-${note.id}.md`;
}

/** `notes-YYYYMMDD.zip` for the UTC date: only digits, so the header needs no escaping. */
export function exportFileName(now = new Date()): string {
  return `notes-${now.toISOString().slice(0, 10).replaceAll("-", "")}.zip`;
}

function truncateUtf8(text: string, maxBytes: number): string {
  // Most slugs fit: one measurement instead of one per character.
  if (Buffer.byteLength(text, "utf8") <= maxBytes) return text;
  let bytes = 0;
  let out = "";
  for (const char of text) {
    bytes += Buffer.byteLength(char, "utf8");
    if (bytes > maxBytes) break;
    out += char;
  }
  return out;
}
