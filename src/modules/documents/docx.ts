import { DOMParser } from "linkedom";
import { BrokenArchiveError, ZipArchive } from "../archives/zip-archive";
import { htmlToMarkdown, parseHtmlDocument } from "../imports/html-to-markdown";
import { ImportError } from "../imports/import-error";
import { importedTitle } from "../notes/note-text";
import type { ConvertContext, ConvertedDocument } from "./convert-document";
import { fitMarkdown } from "./fit-markdown";

// Kept pictures are named under this origin while the HTML becomes Markdown (which takes only http(s) pictures), then pointed home.
const PICTURES_AT = "https://document.invalid";
/** Word's own title style reads as the top heading (mammoth's map has the headings, not it). */
const STYLE_MAP = ["p[style-name='Title'] => h1:fresh", "p[style-name='Subtitle'] => h2:fresh"];

/**
 * A Word document as Markdown through mammoth (which reads headings, lists, tables, bold, italic and
 * links from the document's structure and styles), its tables as pipe tables (the first row the
 * header when Word marks none), its pictures kept as files of the note. Its own title is the core
 * properties' `dc:title`.
 */
export async function readDocx(file: string, ctx: ConvertContext): Promise<ConvertedDocument> {
  const { default: mammoth } = await import("mammoth");
  let pictures = 0;
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { path: file },
      {
        styleMap: STYLE_MAP,
        convertImage: mammoth.images.imgElement(async (image) => {
          ctx.signal.throwIfAborted();
          const url = await ctx.files.keepPicture(new Uint8Array(await image.readAsBuffer()), `picture ${++pictures}`);
          return { src: url ? `${PICTURES_AT}${url}` : "" };
        }),
      },
    );
    html = result.value;
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    throw new ImportError("The Word document could not be read (it is damaged, or not a .docx).", { permanent: true, cause: error });
  }
  await ctx.onProgress(70, "Read the document");
  const body = parseHtmlDocument(html).body;
  const markdown = body ? htmlToMarkdown(body, { tables: true }).replaceAll(`](${PICTURES_AT}/api/files/`, "](/api/files/") : "";
  if (!markdown) throw new ImportError("The Word document has no text or pictures to import.", { permanent: true });
  const fitted = fitMarkdown(markdown, ctx.maxBytes);
  return {
    ownTitle: await coreTitle(file),
    markdown: fitted.markdown,
    cut: fitted.cut ? "The document continues: a note holds at most 1 MiB of text, and this one holds the document's beginning." : null,
  };
}

/** `docProps/core.xml`'s `dc:title`, the document's own title; undefined when it has none. */
async function coreTitle(file: string): Promise<string | undefined> {
  let zip: ZipArchive;
  try {
    zip = await ZipArchive.open(file);
  } catch (error) {
    if (error instanceof BrokenArchiveError) return undefined;
    throw error;
  }
  try {
    for await (const entry of zip.entries()) {
      if (entry.name !== "docProps/core.xml") continue;
      const xml = (await zip.read(entry, 1024 * 1024).catch(() => Buffer.alloc(0))).toString("utf8");
      const document = new DOMParser().parseFromString(xml, "text/xml") as unknown as Document;
      return importedTitle(document.getElementsByTagName("dc:title")[0]?.textContent ?? "") || undefined;
    }
    return undefined;
  } finally {
    zip.close();
  }
}
