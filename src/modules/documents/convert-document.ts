import type { PlatformImporter } from "../imports/platforms/types";
import type { StoredImages } from "../imports/store-images";
import type { DocumentFiles } from "./document-files";
import type { DocumentKind } from "./document-kinds";
import { readPdfInThread } from "./pdf/read-pdf-in-thread";
import { readTextDocument } from "./text-document";
import { fitMarkdown } from "./fit-markdown";

/** What reading a document needs besides the file. */
export interface ConvertContext {
  files: DocumentFiles;
  signal: AbortSignal;
  /** The Markdown's room in the note (UTF-8 bytes). */
  maxBytes: number;
  onProgress(percent: number, message: string): Promise<void>;
  /** The web importer, which reads HTML as the paste import does. */
  web: PlatformImporter;
  /** Downloads and keeps the remote pictures an HTML or Markdown document shows, as the paste import does; absent, they stay links. */
  storeRemoteImages?(markdown: string): Promise<StoredImages>;
}

/** A document as the body of a note. */
export interface ConvertedDocument {
  /** Its own title (PDF info or XMP, EPUB dc:title, DOCX core title, an HTML page's, a Markdown heading). */
  ownTitle?: string;
  markdown: string;
  /** Why the Markdown stops before the document's end (the 1 MiB a note holds), as one sentence; null when whole. */
  cut: string | null;
  sourceUrl?: string;
  author?: string;
  publishedAt?: string;
  tags?: string[];
}

/** Pages without text whose pictures are kept, at most (the note's pictures cap, shared with other pictures). */
const MAX_PAGE_PICTURES = 50;
/** A document still unread after this is cut where reading got to, rather than holding its job for ever. */
const READING_BUDGET_MS = 5 * 60_000;
/** A PDF still being read this long after its budget (one page keeping PDF.js busy) has its thread ended. */
const READING_GRACE_MS = 60_000;

export async function convertDocument(kind: DocumentKind, file: string, ctx: ConvertContext): Promise<ConvertedDocument> {
  switch (kind) {
    case "pdf":
      return convertPdf(file, ctx);
    case "epub":
      return (await import("./epub")).readEpub(file, ctx);
    case "docx":
      return (await import("./docx")).readDocx(file, ctx);
    case "markdown":
    case "text":
    case "html": {
      const { document, ownTitle, cut } = readTextDocument(file, kind, ctx.web);
      let markdown = document.markdown;
      if (ctx.storeRemoteImages && /!\[[^\]]*\]\(https?:/.test(markdown)) {
        await ctx.onProgress(40, "Storing the document's pictures");
        const stored = await ctx.storeRemoteImages(markdown);
        markdown = stored.markdown;
        ctx.files.fileIds.push(...stored.fileIds.filter((id) => !ctx.files.fileIds.includes(id)));
        ctx.files.failures.push(...stored.failures);
      }
      const fitted = fitMarkdown(markdown, ctx.maxBytes);
      return {
        ownTitle,
        markdown: fitted.markdown,
        cut: cut || fitted.cut ? "The document continues: a note holds at most 1 MiB of text, and this one holds the document's beginning." : null,
        sourceUrl: document.sourceUrl,
        author: document.author,
        publishedAt: document.publishedAt,
        tags: document.tags,
      };
    }
  }
}

async function convertPdf(file: string, ctx: ConvertContext): Promise<ConvertedDocument> {
  let lastProgress = 0;
  const reading = await readPdfInThread(file, {
    signal: ctx.signal,
    maxBytes: ctx.maxBytes,
    maxPictures: MAX_PAGE_PICTURES,
    deadline: Date.now() + READING_BUDGET_MS,
    storePicture: (png, page) => ctx.files.keepPicture(png, `page ${page}`),
    onProgress: async (done, total) => {
      // A commit and an event per update: a few a second at most, and the last page always.
      const now = Date.now();
      if (done < total && now - lastProgress < 250) return;
      lastProgress = now;
      await ctx.onProgress(10 + Math.floor((70 * done) / total), `Read page ${done} of ${total}`);
    },
  }, READING_BUDGET_MS + READING_GRACE_MS);
  ctx.files.failures.push(...reading.failures);
  return {
    ownTitle: reading.title,
    markdown: reading.markdown,
    cut: reading.cutAfter === null ? null : `The document continues after page ${reading.cutAfter} (of ${reading.pageCount} pages): a note holds at most 1 MiB of text.`,
  };
}
