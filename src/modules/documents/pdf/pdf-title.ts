/** What PDF.js's `getMetadata()` gives, as far as the title goes. */
interface PdfMetadata {
  info?: unknown;
  metadata?: { get(name: string): unknown } | null;
}

// Titles that name no document: a producer's placeholder, or a word processor's file name prefix.
const PLACEHOLDER = /^(?:untitled(?:[- ]\d+)?|unknown|title|document\d*|about:blank|\s*)$/i;
const PRODUCER_PREFIX = /^(?:microsoft (?:word|powerpoint|excel) - |wps文字 - )/i;

/** The PDF's own title: its info dictionary's `Title`, else the XMP `dc:title`; undefined when neither names it. */
export function pdfTitle(metadata: PdfMetadata | null): string | undefined {
  const info = (metadata?.info ?? {}) as { Title?: unknown };
  let xmp: unknown;
  try {
    xmp = metadata?.metadata?.get("dc:title");
  } catch {
    xmp = undefined;
  }
  for (const candidate of [info.Title, xmp]) {
    if (typeof candidate !== "string") continue;
    const title = candidate.replace(PRODUCER_PREFIX, "").replace(/\s+/g, " ").trim();
    if (!PLACEHOLDER.test(title)) return title;
  }
  return undefined;
}
