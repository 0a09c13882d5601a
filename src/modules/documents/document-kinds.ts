import { DOCX_MIME, type FileMime } from "../files/file-types";

/** DOCUMENT_MAX_MB's default: the largest document an upload or a web import takes, in MiB. */
export const DOCUMENT_MAX_MB_DEFAULT = 100;

/** What a document is read as: each kind has its own reader (PDF, EPUB, DOCX) or the paste import's (text). */
export type DocumentKind = "pdf" | "epub" | "docx" | "markdown" | "text" | "html";

/** The media types `POST /api/tasks/document` takes, and the kind each is read as. */
export const DOCUMENT_MEDIA_TYPES: Readonly<Record<string, DocumentKind>> = {
  "application/pdf": "pdf",
  "application/epub+zip": "epub",
  [DOCX_MIME]: "docx",
  "text/markdown": "markdown",
  "text/plain": "text",
  "text/html": "html",
};

/** The type the original is stored under (one of the files module's). */
export const KIND_MIME: Readonly<Record<DocumentKind, FileMime>> = {
  pdf: "application/pdf",
  epub: "application/epub+zip",
  docx: DOCX_MIME,
  markdown: "text/markdown",
  text: "text/plain",
  html: "text/html",
};

export const KIND_NAMES: Readonly<Record<DocumentKind, string>> = {
  pdf: "PDF",
  epub: "EPUB",
  docx: "Word (DOCX)",
  markdown: "Markdown",
  text: "plain text",
  html: "HTML",
};

export function isDocumentKind(value: string | null): value is DocumentKind {
  return value !== null && Object.hasOwn(KIND_MIME, value);
}
