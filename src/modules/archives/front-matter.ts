import { CORE_SCHEMA, FAILSAFE_SCHEMA, load, type Schema } from "js-yaml";

export interface SplitMarkdown {
  /** The parsed front matter, or null when the file has none (or it is not a YAML mapping). */
  data: Record<string, unknown> | null;
  /** Everything after the closing `---` line (the whole text when there is no front matter). */
  body: string;
}

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*\r?$/m;

/**
 * Splits YAML front matter off a Markdown file. Vaults are read with the failsafe schema, so dates
 * and numbers stay strings until we read them, and nothing is ever evaluated.
 */
export function splitFrontMatter(text: string, schema: Schema = FAILSAFE_SCHEMA): SplitMarkdown {
  const opening = OPENING.exec(text);
  if (!opening) return { data: null, body: text };
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) return { data: null, body: text };
  const yaml = rest.slice(0, closing.index);
  let afterClosing = rest.slice(closing.index + closing[0].length);
  if (afterClosing.startsWith("\n")) afterClosing = afterClosing.slice(1);
  let data: unknown;
  try {
    data = load(yaml, { schema });
  } catch {
    return { data: null, body: text };
  }
  if (data === undefined || data === null) return { data: {}, body: afterClosing };
  if (typeof data !== "object" || Array.isArray(data)) return { data: null, body: text };
  return { data: data as Record<string, unknown>, body: afterClosing };
}

/**
 * Our own export's front matter. Its writer quotes every string the default schema would read as
 * something else, so the core schema reads it back exactly — `null` as null, `id` as a number —
 * and still turns no date into a Date.
 */
export const splitExportFrontMatter = (text: string) => splitFrontMatter(text, CORE_SCHEMA);
