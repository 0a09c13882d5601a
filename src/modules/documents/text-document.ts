import fs from "node:fs";
import { importedTitle } from "../notes/note-text";
import { documentFromPastedText } from "../imports/pasted-text";
import type { ImportedDocument, PlatformImporter } from "../imports/platforms/types";
import { MAX_PASTED_BYTES } from "../imports/schemas";

/** A Markdown, plain-text or HTML document read as the paste import reads pasted content; its first 10 MiB, as pasted content is. */
export function readTextDocument(file: string, kind: "markdown" | "text" | "html", web: PlatformImporter): { document: ImportedDocument; ownTitle: string | undefined; cut: boolean } {
  const { text, cut } = readUtf8Prefix(file, MAX_PASTED_BYTES);
  if (kind === "html") {
    const document = web.parsePasted(text);
    return { document, ownTitle: document.title === "Untitled page" ? undefined : document.title, cut };
  }
  const document = documentFromPastedText(text);
  return { document, ownTitle: kind === "markdown" ? firstHeading(document.markdown) : undefined, cut };
}

/** The file's first `maxBytes` as text (a character split at the end left out). */
function readUtf8Prefix(file: string, maxBytes: number): { text: string; cut: boolean } {
  const handle = fs.openSync(file, "r");
  try {
    const size = fs.fstatSync(handle).size;
    const buffer = Buffer.alloc(Math.min(size, maxBytes));
    const read = fs.readSync(handle, buffer, 0, buffer.length, 0);
    // Streaming: a character cut in two at the end is held back, not decoded as U+FFFD.
    return { text: new TextDecoder().decode(buffer.subarray(0, read), { stream: true }), cut: size > read };
  } finally {
    fs.closeSync(handle);
  }
}

/** A Markdown document's first ATX heading, as its own title. */
function firstHeading(markdown: string): string | undefined {
  const match = /^ {0,3}#{1,6}[ \t]+(.{1,2000})$/m.exec(markdown.slice(0, 100_000));
  const title = match ? importedTitle(match[1]!.replace(/[ \t]+#+[ \t]*$/, "")) : "";
  return title || undefined;
}
