import fs from "node:fs";
import { BrokenArchiveError, ZipArchive } from "../archives/zip-archive";
import { UnsupportedMediaTypeError } from "../errors";
import { type DocumentKind, KIND_NAMES } from "./document-kinds";

/** A ZIP's directory is read this far when looking for a document's parts (an EPUB or DOCX has dozens). */
const MAX_ZIP_ENTRIES = 20_000;
const TEXT_CHUNK = 1024 * 1024;

/**
 * Checks that an upload's bytes are what its Content-Type says: a PDF starts with `%PDF-`, an EPUB
 * is a ZIP holding `META-INF/container.xml` (and, when it has one, a `mimetype` of
 * `application/epub+zip`), a DOCX a ZIP holding `[Content_Types].xml` and `word/document.xml`,
 * and text is UTF-8 without NUL bytes. Throws UnsupportedMediaTypeError (a 415) otherwise.
 */
export async function checkDocumentBytes(file: string, kind: DocumentKind): Promise<void> {
  const refuse = (what: string) => new UnsupportedMediaTypeError(`The body is not ${what}, as its Content-Type says: send the document's own bytes with its own type`);
  switch (kind) {
    case "pdf": {
      const head = Buffer.alloc(5);
      const handle = await fs.promises.open(file, "r");
      try {
        await handle.read(head, 0, 5, 0);
      } finally {
        await handle.close();
      }
      if (head.toString("latin1") !== "%PDF-") throw refuse("a PDF (it does not start with %PDF-)");
      return;
    }
    case "epub":
    case "docx": {
      const parts = await zipParts(file, kind === "epub" ? ["META-INF/container.xml", "mimetype"] : ["[Content_Types].xml", "word/document.xml"]);
      if (!parts) throw refuse(`a ${KIND_NAMES[kind]} file (it is not a ZIP)`);
      if (kind === "epub" && (!parts.has("META-INF/container.xml") || (parts.has("mimetype") && parts.get("mimetype") !== "application/epub+zip"))) {
        throw refuse("an EPUB (its ZIP has no META-INF/container.xml, or another mimetype)");
      }
      if (kind === "docx" && (!parts.has("[Content_Types].xml") || !parts.has("word/document.xml"))) {
        throw refuse("a Word document (its ZIP has no [Content_Types].xml and word/document.xml)");
      }
      return;
    }
    default:
      if (!(await isUtf8Text(file))) throw refuse(`${KIND_NAMES[kind]} (it is not UTF-8 text)`);
  }
}

/** Which of `wanted` a ZIP holds, with the text of its `mimetype` entry; null when the file is not a ZIP. */
async function zipParts(file: string, wanted: string[]): Promise<Map<string, string> | null> {
  let zip: ZipArchive;
  try {
    zip = await ZipArchive.open(file);
  } catch (error) {
    if (error instanceof BrokenArchiveError) return null;
    throw error;
  }
  const found = new Map<string, string>();
  try {
    let seen = 0;
    for await (const entry of zip.entries()) {
      if (++seen > MAX_ZIP_ENTRIES) break;
      if (!wanted.includes(entry.name)) continue;
      found.set(entry.name, entry.name === "mimetype" ? (await zip.read(entry, 100).catch(() => Buffer.alloc(0))).toString("latin1").trim() : "");
    }
  } catch (error) {
    if (error instanceof BrokenArchiveError) return null;
    throw error;
  } finally {
    zip.close();
  }
  return found;
}

/** UTF-8 throughout (a byte-order mark allowed), with no NUL byte: text, not a binary file under a text type. */
async function isUtf8Text(file: string): Promise<boolean> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const handle = await fs.promises.open(file, "r");
  const buffer = Buffer.alloc(TEXT_CHUNK);
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, TEXT_CHUNK, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      if (chunk.includes(0)) return false;
      decoder.decode(chunk, { stream: true });
    }
    decoder.decode();
    return true;
  } catch {
    return false;
  } finally {
    await handle.close();
  }
}
