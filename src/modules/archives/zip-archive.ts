import yauzl from "yauzl";
import { decodeEntryName } from "./entry-name";

export interface ArchiveEntry {
  /** Position in the central directory: the resume cursor counts these. */
  index: number;
  name: string;
  isDirectory: boolean;
  compressedSize: number;
  uncompressedSize: number;
  raw: yauzl.Entry;
}

/** The archive is not a ZIP, is truncated, or an entry's real size differs from the declared one. */
export class BrokenArchiveError extends Error {
  override name = "BrokenArchiveError";
}

/**
 * A ZIP file on disk, read with yauzl: the central directory entry by entry (never all at once),
 * and each entry's bytes through a stream whose real size yauzl checks against the declared one.
 */
export class ZipArchive {
  private constructor(private readonly zip: yauzl.ZipFile) {}

  static async open(file: string): Promise<ZipArchive> {
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      // decodeStrings off: names are decoded (GB18030 included) and checked by us, per entry.
      yauzl.open(file, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false }, (error, opened) =>
        error ? reject(new BrokenArchiveError(`The upload is not a readable ZIP archive (${error.message})`)) : resolve(opened),
      ),
    );
    return new ZipArchive(zip);
  }

  get entryCount(): number {
    return this.zip.entryCount;
  }

  /** One pass over the central directory (yauzl reads it once per open: a second pass opens the file again). */
  async *entries(): AsyncGenerator<ArchiveEntry> {
    const zip = this.zip;
    let index = 0;
    for (;;) {
      const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
        const cleanup = () => {
          zip.off("entry", onEntry);
          zip.off("end", onEnd);
          zip.off("error", onError);
        };
        const onEntry = (value: yauzl.Entry) => (cleanup(), resolve(value));
        const onEnd = () => (cleanup(), resolve(null));
        const onError = (error: Error) => (cleanup(), reject(new BrokenArchiveError(`The archive is damaged (${error.message})`)));
        zip.on("entry", onEntry);
        zip.on("end", onEnd);
        zip.on("error", onError);
        zip.readEntry();
      });
      if (!entry) return;
      const rawName = entry.fileName as unknown as Buffer;
      const name = decodeEntryName(rawName, (entry.generalPurposeBitFlag & 0x800) !== 0);
      yield {
        index: index++,
        name,
        isDirectory: name.endsWith("/") || name.endsWith("\\"),
        compressedSize: entry.compressedSize,
        uncompressedSize: entry.uncompressedSize,
        raw: entry,
      };
    }
  }

  /** An entry's bytes; refuses to read past `maxBytes` whatever the entry declares. */
  async read(entry: ArchiveEntry, maxBytes: number): Promise<Buffer> {
    if (entry.uncompressedSize > maxBytes) throw new BrokenArchiveError(`${entry.name} is larger than ${maxBytes} bytes`);
    const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
      this.zip.openReadStream(entry.raw, (error, opened) =>
        error ? reject(new BrokenArchiveError(`${entry.name} cannot be read (${error.message})`)) : resolve(opened),
      ),
    );
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) throw new BrokenArchiveError(`${entry.name} is larger than ${maxBytes} bytes`);
        chunks.push(chunk);
      }
    } catch (error) {
      (stream as unknown as { destroy?: () => void }).destroy?.();
      if (error instanceof BrokenArchiveError) throw error;
      throw new BrokenArchiveError(`${entry.name} is damaged (${(error as Error).message})`);
    }
    return Buffer.concat(chunks);
  }

  close(): void {
    this.zip.close();
  }
}
