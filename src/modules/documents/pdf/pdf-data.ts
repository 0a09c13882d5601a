import fs from "node:fs";

/**
 * Where PDF.js finds the data a PDF may need but not carry: the CMaps of Chinese, Japanese and
 * Korean fonts the PDF names without embedding (`UniGB-UCS2-H` with STSong-Light: without its CMap
 * such a page reads as nothing) and the standard fonts' metrics. They come with the pdfjs-dist
 * package (the same PDF.js release unpdf bundles); without it, those PDFs read as well as they can.
 */
export function pdfDataOptions(): Record<string, unknown> {
  let base: string;
  try {
    base = import.meta.resolve("pdfjs-dist/package.json");
  } catch {
    return {};
  }
  return {
    cMapUrl: new URL("./cmaps/", base).href,
    cMapPacked: true,
    standardFontDataUrl: new URL("./standard_fonts/", base).href,
    // Read from disk here: the build's own reader fetches, which cannot read file: URLs.
    BinaryDataFactory: FileDataFactory,
    useWorkerFetch: false,
  };
}

/** PDF.js's data reader (its `BinaryDataFactory`): a named file of one of the two folders, never a path of the PDF's choosing. */
class FileDataFactory {
  readonly #folders: Record<string, string | null>;

  constructor(folders: { cMapUrl?: string | null; standardFontDataUrl?: string | null }) {
    this.#folders = { cMapUrl: folders.cMapUrl ?? null, standardFontDataUrl: folders.standardFontDataUrl ?? null };
  }

  async fetch({ kind, filename }: { kind: string; filename: string }): Promise<Uint8Array> {
    const folder = this.#folders[kind];
    if (!folder || !/^[\w.+-]{1,100}$/.test(filename) || filename.includes("..")) throw new Error(`no ${kind} data named ${filename}`);
    return new Uint8Array(await fs.promises.readFile(new URL(filename, folder)));
  }
}
