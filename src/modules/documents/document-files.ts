import fs from "node:fs";
import type { Database } from "../../db/client";
import { ServiceError, UnsupportedMediaTypeError } from "../errors";
import { BlobTooLargeError, stageBlob, type FileStorage } from "../files/blob-store";
import { fileUrl } from "../files/file-record";
import type { FileMime } from "../files/file-types";
import { ACCEPTED_TYPES, recordFiles, stageImage } from "../files/store-file";
import { MAX_IMAGES_PER_NOTE } from "../imports/store-images";

/** Where a document's files go: the user's stored files, pending for the task until its note is written. */
export interface DocumentFileContext {
  db: Database;
  storage?: FileStorage;
  userId: number;
  taskId: number;
}

/**
 * A document's pictures (a page's scan, an EPUB's or DOCX's images) and its original, kept as the
 * user's files for the note about to be written: each `keep…` answers the file's address, or null
 * with the reason listed in `failures`. At most 50 pictures a note, as for any import.
 */
export class DocumentFiles {
  readonly fileIds: number[] = [];
  readonly failures: { name: string; error: string }[] = [];
  #pictures = 0;

  constructor(private readonly ctx: DocumentFileContext) {}

  /** No more pictures are kept (a caller may skip reading them; `keepPicture` still lists each). */
  get picturesFull(): boolean {
    return this.#pictures >= MAX_IMAGES_PER_NOTE;
  }

  /** A picture's bytes (PNG, JPEG, GIF, WebP or AVIF, typed from the bytes), named for `failures`. */
  async keepPicture(bytes: Uint8Array, name: string): Promise<string | null> {
    const { storage } = this.ctx;
    if (!storage) return this.#refuse(name, "Not stored: file storage is not set up on this server");
    if (this.#pictures >= MAX_IMAGES_PER_NOTE) return this.#refuse(name, `Not stored: a note keeps at most ${MAX_IMAGES_PER_NOTE} pictures`);
    try {
      const image = await stageImage(storage, [bytes]);
      const [row] = await recordFiles({ db: this.ctx.db, storage }, { userId: this.ctx.userId, files: [image], pendingTaskId: this.ctx.taskId });
      if (row instanceof Error) return this.#refuse(name, `Not stored: ${row.message}`);
      this.#pictures++;
      return this.#kept(row!.id);
    } catch (error) {
      if (error instanceof UnsupportedMediaTypeError) return this.#refuse(name, `Not stored: not a ${ACCEPTED_TYPES} image`);
      if (error instanceof ServiceError) return this.#refuse(name, `Not stored: ${error.message.replace(/^The file/, "the picture")}`);
      throw error;
    }
  }

  /** The uploaded (or downloaded) document itself, streamed from disk into the store. */
  async keepOriginal(file: string, mime: FileMime): Promise<string | null> {
    const { storage } = this.ctx;
    const name = "original";
    if (!storage) return this.#refuse(name, "Not stored: file storage is not set up on this server");
    let blob;
    try {
      blob = await stageBlob(storage.dir, fs.createReadStream(file), Number.MAX_SAFE_INTEGER);
    } catch (error) {
      if (error instanceof BlobTooLargeError) return this.#refuse(name, "Not stored: the document is too large to keep");
      throw error;
    }
    const [row] = await recordFiles({ db: this.ctx.db, storage }, { userId: this.ctx.userId, files: [{ blob, type: { mime } }], pendingTaskId: this.ctx.taskId });
    if (row instanceof Error) return this.#refuse(name, `Not stored: ${row.message}`);
    return this.#kept(row!.id);
  }

  #kept(id: number): string {
    if (!this.fileIds.includes(id)) this.fileIds.push(id);
    return fileUrl(id);
  }

  #refuse(name: string, error: string): null {
    this.failures.push({ name, error });
    return null;
  }
}
