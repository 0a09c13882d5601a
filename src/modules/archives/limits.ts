/** The contract's archive limits ("Archive import and re-import"). */
export const ARCHIVE_BODY_LIMIT = 256 * 1024 * 1024;
export const MAX_TOTAL_UNCOMPRESSED = 1024 * 1024 * 1024;
export const MAX_ENTRIES = 50_000;
export const MAX_MARKDOWN_BYTES = 10 * 1024 * 1024;
/** An entry over this size that expands more than MAX_RATIO times is a zip bomb. */
export const RATIO_CHECK_FROM = 1024 * 1024;
export const MAX_RATIO = 100;
/** `failures` keeps the first this many. */
export const MAX_FAILURES = 100;

export const ARCHIVE_FORMATS = ["auto", "rhizome", "markdown"] as const;
export type ArchiveFormat = (typeof ARCHIVE_FORMATS)[number];
