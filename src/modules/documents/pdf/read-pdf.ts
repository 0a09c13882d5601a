import fs from "node:fs";
import { ImportError } from "../../imports/import-error";
import { encodePng, shrinkToFit } from "../png";
import { largestPicture, type ImageOps } from "./page-picture";
import { pageLines, textRuns, type PdfLine } from "./page-lines";
import { lineSpacing, pageParagraphs } from "./paragraphs";
import { runningLines } from "./running-lines";
import { pdfTitle } from "./pdf-title";
import { pdfDataOptions } from "./pdf-data";

/** A scan's longer side is brought down to this: enough for OCR and a reader, small enough to keep. */
const PICTURE_MAX_SIDE = 2400;
/** PDF.js decodes no image of more pixels than this (a hostile file could declare any size). */
const MAX_IMAGE_PIXELS = 40_000_000;

export interface ReadPdfOptions {
  signal: AbortSignal;
  /** The Markdown stops (at a paragraph) before passing this many UTF-8 bytes: the note's room. */
  maxBytes: number;
  /** Pages without text whose pictures are kept, at most. */
  maxPictures: number;
  /** Keeps a page's picture (a PNG) as a file of the note: its `/api/files/{id}` address, or null when it could not be kept. */
  storePicture(png: Uint8Array, page: string): Promise<string | null>;
  onProgress?(done: number, total: number): Promise<void> | void;
  /** Pages not read by this time (epoch ms) are left out, as past `maxBytes`. */
  deadline?: number;
}

export interface PdfReading {
  /** The document's own title (its info dictionary's, else its XMP `dc:title`). */
  title: string | undefined;
  pageCount: number;
  markdown: string;
  /** The name (label or number) of the last page the Markdown holds, when it stops before the end; null when whole. */
  cutAfter: string | null;
  /** Pages without text whose picture was not kept, with why. */
  failures: { name: string; error: string }[];
}

type PdfJs = typeof import("unpdf/pdfjs");

/**
 * A PDF as Markdown: each page begins with `[p. N]` (N its label when the PDF has labels, else its
 * number), then its text in reading order as paragraphs, its running headers and footers dropped; a
 * page with no text has its largest picture kept as a file of the note, shown on the next paragraph
 * (`![Page N](/api/files/…)`), for OCR to read in place.
 */
export async function readPdf(file: string, options: ReadPdfOptions): Promise<PdfReading> {
  const [{ getDocumentProxy, getResolvedPDFJS }] = await Promise.all([import("unpdf")]);
  const pdfjs = (await getResolvedPDFJS()) as PdfJs;
  const pdf = await openPdf(getDocumentProxy, new Uint8Array(fs.readFileSync(file)));
  try {
    const pageCount = pdf.numPages;
    const title = pdfTitle(await pdf.getMetadata().catch(() => null));
    const labels = await pdf.getPageLabels().catch(() => null);
    const names = Array.from({ length: pageCount }, (_, index) => pageName(labels?.[index], index));

    // First every page's lines (up to the note's room), so headers and spacing are judged over the whole document.
    const pages: PdfLine[][] = [];
    const unreadable = new Set<number>();
    let characters = 0;
    for (let index = 0; index < pageCount && characters <= options.maxBytes; index++) {
      options.signal.throwIfAborted();
      if (options.deadline !== undefined && Date.now() > options.deadline) break;
      let lines: PdfLine[] = [];
      try {
        const page = await pdf.getPage(index + 1);
        lines = pageLines(textRuns((await page.getTextContent()).items));
        page.cleanup();
      } catch {
        // One damaged page does not lose the others.
        unreadable.add(index);
      }
      pages.push(lines);
      for (const line of lines) characters += line.text.length;
      await options.onProgress?.(index + 1, pageCount);
    }
    const running = runningLines(pages, labels ? names : []);
    const spacing = lineSpacing(pages.map((lines) => lines.filter((line) => !running.has(line))));

    const parts: string[] = [];
    let bytes = 0;
    let pictures = 0;
    const failures: PdfReading["failures"] = [];
    let cutAfter: string | null = pages.length < pageCount ? (names[pages.length - 1] ?? null) : null;
    for (const [index, all] of pages.entries()) {
      options.signal.throwIfAborted();
      const name = names[index]!;
      const lines = all.filter((line) => !running.has(line));
      let blocks: string[];
      if (lines.length > 0) blocks = pageParagraphs(lines, spacing);
      else if (unreadable.has(index)) {
        blocks = [];
        failures.push({ name: `page ${name}`, error: "The page could not be read (it is damaged)" });
      } else if (pictures >= options.maxPictures) {
        blocks = [];
        failures.push({ name: `page ${name}`, error: `No text, and its picture was not kept: a document keeps at most ${options.maxPictures} page pictures` });
      } else {
        const url = await pagePicture(pdf, pdfjs.OPS as ImageOps, index + 1, name, options);
        if (url) pictures++;
        else failures.push({ name: `page ${name}`, error: "No text, and no picture could be read from it" });
        blocks = url ? [`![Page ${name}](${url})`] : [];
      }
      const marker = `[p. ${name}]`;
      if (bytes + Buffer.byteLength(marker) + 2 > options.maxBytes) {
        cutAfter = names[index - 1] ?? null;
        break;
      }
      parts.push(marker);
      bytes += Buffer.byteLength(marker) + 2;
      let whole = true;
      for (const block of blocks) {
        const size = Buffer.byteLength(block) + 2;
        if (bytes + size > options.maxBytes) {
          whole = false;
          break;
        }
        parts.push(block);
        bytes += size;
      }
      if (!whole) {
        cutAfter = name;
        break;
      }
    }
    return { title, pageCount, markdown: parts.join("\n\n"), cutAfter, failures };
  } finally {
    await pdf.destroy();
  }
}

async function openPdf(getDocumentProxy: (typeof import("unpdf"))["getDocumentProxy"], data: Uint8Array) {
  try {
    return await getDocumentProxy(data, {
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      isOffscreenCanvasSupported: false,
      isImageDecoderSupported: false,
      maxImageSize: MAX_IMAGE_PIXELS,
      stopAtErrors: false,
      verbosity: 0,
      ...pdfDataOptions(),
    });
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === "PasswordException") throw new ImportError("The PDF is protected by a password: open it, save a copy without the password, and upload that.", { permanent: true });
    throw new ImportError("The file is not a readable PDF (it is damaged or not a PDF).", { permanent: true, cause: error });
  }
}

/** A page's name as `[p. N]` writes it: its label when the PDF gives one (made safe for the marker), else its number. */
function pageName(label: string | undefined, index: number): string {
  const clean = (label ?? "").replace(/[\u0000-\u001f\u007f[\]()]/g, "").replace(/\s+/g, " ").trim().slice(0, 24);
  return clean || String(index + 1);
}

/** The page's largest picture as a PNG kept with the note; its address, or null. */
async function pagePicture(pdf: { getPage(n: number): Promise<unknown> }, ops: ImageOps, number: number, name: string, options: ReadPdfOptions): Promise<string | null> {
  const page = (await pdf.getPage(number)) as Parameters<typeof largestPicture>[0] & { cleanup(): void };
  try {
    const pixels = await largestPicture(page, ops);
    if (!pixels) return null;
    return await options.storePicture(encodePng(shrinkToFit(pixels, PICTURE_MAX_SIDE)), name);
  } catch (error) {
    if (options.signal.aborted) throw error;
    return null;
  } finally {
    page.cleanup();
  }
}
