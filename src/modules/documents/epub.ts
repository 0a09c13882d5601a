import path from "node:path";
import { DOMParser } from "linkedom";
import { type ArchiveEntry, BrokenArchiveError, ZipArchive } from "../archives/zip-archive";
import { MAX_FILE_BYTES } from "../files/blob-store";
import { ImportError } from "../imports/import-error";
import { importedTitle } from "../notes/note-text";
import { chapterMarkdown, type ChapterPictures } from "./chapter-markdown";
import type { ConvertContext, ConvertedDocument } from "./convert-document";
import { fitMarkdown } from "./fit-markdown";

/** An EPUB's XML parts (container, package, navigation) and chapters are read up to this size each. */
const MAX_PART_BYTES = 10 * 1024 * 1024;
const MAX_ENTRIES = 20_000;

interface Book {
  title: string | undefined;
  /** The chapters' entry names, in reading order. */
  spine: string[];
  /** Table-of-contents labels by entry name. */
  labels: Map<string, string>;
}

/**
 * An EPUB as Markdown: its chapters in the spine's reading order, each a `## <chapter title>`
 * section (the table of contents' label, else the chapter's first heading, else its `<title>`),
 * its XHTML through the importer's HTML-to-Markdown path, its pictures kept as files of the note.
 */
export async function readEpub(file: string, ctx: ConvertContext): Promise<ConvertedDocument> {
  let zip: ZipArchive;
  try {
    zip = await ZipArchive.open(file);
  } catch (error) {
    if (error instanceof BrokenArchiveError) throw new ImportError("The EPUB is not a readable ZIP archive (it is damaged).", { permanent: true });
    throw error;
  }
  try {
    const entries = new Map<string, ArchiveEntry>();
    for await (const entry of zip.entries()) {
      if (entries.size >= MAX_ENTRIES) break;
      if (!entry.isDirectory) entries.set(entry.name, entry);
    }
    const read = async (name: string, maxBytes = MAX_PART_BYTES): Promise<Buffer | null> => {
      const entry = entries.get(name);
      if (!entry) return null;
      try {
        return await zip.read(entry, maxBytes);
      } catch (error) {
        if (error instanceof BrokenArchiveError) return null;
        throw error;
      }
    };
    const book = await readPackage(read);
    const sections: string[] = [];
    let bytes = 0;
    let cut = false;
    for (const [index, name] of book.spine.entries()) {
      ctx.signal.throwIfAborted();
      await ctx.onProgress(10 + Math.floor((70 * index) / book.spine.length), `Read chapter ${index + 1} of ${book.spine.length}`);
      const xhtml = await read(name);
      if (!xhtml) continue;
      const pictures: ChapterPictures = async (source) => {
        const target = resolvePart(name, source);
        if (ctx.files.picturesFull) return ctx.files.keepPicture(new Uint8Array(0), source);
        const picture = target && (await read(target, MAX_FILE_BYTES));
        return picture ? ctx.files.keepPicture(picture, source) : null;
      };
      const chapter = await chapterMarkdown(xhtml.toString("utf8"), { label: book.labels.get(name), pictures, number: index + 1 });
      if (!chapter) continue;
      const size = Buffer.byteLength(chapter) + 2;
      if (bytes + size > ctx.maxBytes) {
        // The chapter that does not fit keeps the paragraphs that do (a book of one long chapter is not emptied).
        const room = ctx.maxBytes - bytes - 2;
        if (room > 1024) sections.push(fitMarkdown(chapter, room).markdown);
        cut = true;
        break;
      }
      sections.push(chapter);
      bytes += size;
    }
    if (sections.length === 0 && !cut) throw new ImportError("The EPUB has no chapter with text or pictures to import.", { permanent: true });
    return { ownTitle: book.title, markdown: sections.join("\n\n"), cut: cut ? "The book continues: a note holds at most 1 MiB of text, and this one holds the book's beginning." : null };
  } finally {
    zip.close();
  }
}

/** The package document (found through META-INF/container.xml): title, spine and table of contents. */
async function readPackage(read: (name: string) => Promise<Buffer | null>): Promise<Book> {
  const container = await read("META-INF/container.xml");
  const rootPath = container && xml(container).getElementsByTagName("rootfile")[0]?.getAttribute("full-path");
  const opfBytes = rootPath ? await read(rootPath) : null;
  if (!rootPath || !opfBytes) throw new ImportError("The EPUB has no package document (META-INF/container.xml names none that is there).", { permanent: true });
  const opf = xml(opfBytes);
  const items = new Map<string, { href: string; type: string; properties: string }>();
  for (const item of Array.from(opf.getElementsByTagName("item"))) {
    const href = resolvePart(rootPath, item.getAttribute("href") ?? "");
    if (href) items.set(item.getAttribute("id") ?? "", { href, type: item.getAttribute("media-type") ?? "", properties: item.getAttribute("properties") ?? "" });
  }
  const spine = Array.from(opf.getElementsByTagName("itemref"))
    .filter((ref) => ref.getAttribute("linear") !== "no")
    .map((ref) => items.get(ref.getAttribute("idref") ?? ""))
    .filter((item) => item && /html/.test(item.type))
    .map((item) => item!.href);
  const titleElement = opf.getElementsByTagName("dc:title")[0] ?? opf.getElementsByTagName("title")[0];
  const labels = new Map<string, string>();
  const nav = [...items.values()].find((item) => item.properties.split(/\s+/).includes("nav"));
  const ncxId = opf.getElementsByTagName("spine")[0]?.getAttribute("toc");
  const ncx = ncxId ? items.get(ncxId) : [...items.values()].find((item) => item.type === "application/x-dtbncx+xml");
  if (nav) {
    const document = await read(nav.href);
    const links = document ? Array.from(xml(document, "text/html").querySelectorAll("nav a[href]")) : [];
    for (const link of links) addLabel(labels, nav.href, link.getAttribute("href"), link.textContent);
  }
  if (labels.size === 0 && ncx) {
    const document = await read(ncx.href);
    for (const point of document ? Array.from(xml(document).getElementsByTagName("navPoint")) : []) {
      const label = point.getElementsByTagName("text")[0]?.textContent;
      addLabel(labels, ncx.href, point.getElementsByTagName("content")[0]?.getAttribute("src") ?? null, label ?? null);
    }
  }
  return { title: importedTitle(titleElement?.textContent ?? "") || undefined, spine, labels };
}

/** The first label the table of contents gives a chapter file (a later one names a part inside it). */
function addLabel(labels: Map<string, string>, from: string, href: string | null, text: string | null): void {
  const target = href ? resolvePart(from, href.split("#")[0]!) : null;
  const label = importedTitle(text ?? "");
  if (target && label && !labels.has(target)) labels.set(target, label);
}

function xml(bytes: Buffer, type: "text/xml" | "text/html" = "text/xml"): Document {
  return new DOMParser().parseFromString(bytes.toString("utf8").replace(/^\uFEFF/, ""), type) as unknown as Document;
}

/** A reference from one part of the book to another, as an entry name; null when it leaves the book or is not a file. */
export function resolvePart(from: string, reference: string): string | null {
  if (!reference || /^[a-z][a-z0-9+.-]*:/i.test(reference)) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(reference.split("#")[0]!.split("?")[0]!);
  } catch {
    return null;
  }
  if (!decoded) return null;
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), decoded));
  return joined.startsWith("../") || joined.startsWith("/") ? null : joined;
}
