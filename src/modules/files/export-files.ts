import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "../../db/client";
import { files } from "../../db/schema";
import { blobPath, type FileStorage } from "./blob-store";
import { referencedFileIds } from "./file-links";
import { fileExtension } from "./file-types";


/** `](/api/files/{id}` — a stored file as a Markdown link destination. */
const FILE_DESTINATION = /\]\(\/api\/files\/([1-9]\d{0,15})(?=[\s)])/g;

/** Where a stored file sits in an export: `files/<sha256>.<ext>`, one per file however many notes show it. */
export function exportedFileName(sha256: string, mime: string): string {
  return `files/${sha256}.${fileExtension(mime)}`;
}

/**
 * The export's pictures: `linkNote` points a note's links to the user's stored files at
 * `files/<sha256>.<ext>` (relative, so the export opens with its images in Obsidian) and
 * remembers them; `entries` then yields each such file once, streamed from disk.
 */
export function createExportedFiles(ctx: { db: Database; userId: number; storage?: FileStorage }) {
  const named = new Map<number, string>();
  const toWrite = new Map<string, string>(); // ZIP name → sha256
  return {
    async linkNote(content: string): Promise<string> {
      if (!ctx.storage) return content;
      const ids = referencedFileIds(content).filter((id) => !named.has(id));
      if (ids.length > 0) {
        const rows = await ctx.db
          .select({ id: files.id, sha256: files.sha256, mime: files.mime })
          .from(files)
          .where(and(eq(files.userId, ctx.userId), inArray(files.id, ids)));
        for (const row of rows) {
          const name = exportedFileName(row.sha256, row.mime);
          named.set(row.id, name);
          toWrite.set(name, row.sha256);
        }
      }
      // Links to files that are not the user's (or no longer exist) stay as written.
      return content.replace(FILE_DESTINATION, (whole, id: string) => {
        const name = named.get(Number(id));
        return name ? `](${name}` : whole;
      });
    },
    async *entries() {
      if (!ctx.storage) return;
      for (const [name, sha256] of toWrite) {
        const file = Bun.file(blobPath(ctx.storage.dir, sha256));
        // One file in memory at a time (a picture at most 10 MiB, a document's original up to DOCUMENT_MAX_MB): the ZIP writer takes bytes.
        if (await file.exists()) yield { name, lastModified: new Date(file.lastModified), input: new Uint8Array(await file.arrayBuffer()) };
      }
    },
  };
}
