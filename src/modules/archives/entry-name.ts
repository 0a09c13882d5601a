const utf8 = new TextDecoder("utf-8", { fatal: true });
const gb18030 = new TextDecoder("gb18030");

/**
 * An entry's name as text: UTF-8 when the entry says so (general purpose bit 11) or the bytes are
 * valid UTF-8, else GB18030 (a superset of GBK), which ZIPs made on Chinese Windows use.
 */
export function decodeEntryName(raw: Uint8Array, utf8Flag: boolean): string {
  if (utf8Flag) return new TextDecoder("utf-8").decode(raw);
  try {
    return utf8.decode(raw);
  } catch {
    return gb18030.decode(raw);
  }
}

/** Why a name may not be used (absolute, a drive letter, climbing out with `..`), or null when it is safe. */
export function unsafeNameReason(name: string): string | null {
  const path = name.replaceAll("\\", "/");
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return "Absolute paths are not allowed in an archive";
  if (path.split("/").includes("..")) return "Paths that climb out of the archive (`..`) are not allowed";
  if (path.includes("\u0000")) return "Entry names may not contain NUL";
  return null;
}

/** Entries nobody wrote as notes: macOS resource forks and dot-files or dot-folders (.obsidian, .DS_Store). */
export function isHiddenEntry(name: string): boolean {
  const parts = name.replaceAll("\\", "/").split("/").filter(Boolean);
  return parts[0] === "__MACOSX" || parts.some((part) => part.startsWith("."));
}

export function isMarkdownName(name: string): boolean {
  return /\.(md|markdown)$/i.test(name);
}
