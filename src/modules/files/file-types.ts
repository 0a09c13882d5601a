/** The types a stored file may have: pictures (typed from their bytes), and documents' originals. */
export const IMAGE_MIME_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif"] as const;

export const DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/** An uploaded document kept whole beside its note (typed by the documents module, from its bytes where it can). */
export const DOCUMENT_MIME_TYPES = ["application/pdf", "application/epub+zip", DOCX_MIME, "text/markdown", "text/plain", "text/html"] as const;

export const FILE_MIME_TYPES = [...IMAGE_MIME_TYPES, ...DOCUMENT_MIME_TYPES] as const;
export type FileMime = (typeof FILE_MIME_TYPES)[number];

const EXTENSIONS: Record<FileMime, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/avif": "avif",
  "application/pdf": "pdf",
  "application/epub+zip": "epub",
  [DOCX_MIME]: "docx",
  "text/markdown": "md",
  "text/plain": "txt",
  "text/html": "html",
};

/** The file name extension of a stored type (`bin` for a type this version does not know). */
export function fileExtension(mime: string): string {
  return EXTENSIONS[mime as FileMime] ?? "bin";
}

export function isImageMime(mime: string): boolean {
  return (IMAGE_MIME_TYPES as readonly string[]).includes(mime);
}

/**
 * How a stored file's bytes are sent: a picture as itself, to be shown; anything else (a PDF, an
 * HTML page) as a download under a plain name, never run or shown by the browser in our origin.
 */
export function servingHeaders(id: number, mime: string): Record<string, string> {
  if (isImageMime(mime)) return { "Content-Type": mime };
  return {
    "Content-Type": mime.startsWith("text/") ? `${mime}; charset=utf-8` : mime,
    "Content-Disposition": `attachment; filename="file-${id}.${fileExtension(mime)}"`,
    "Content-Security-Policy": "default-src 'none'; sandbox",
  };
}
