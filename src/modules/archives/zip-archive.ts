import fs from "node:fs";
import { Readable } from "node:stream";
import { inflateRawSync } from "node:zlib";
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
 * and each entry's bytes, checked against the size the entry declares.
 */
export class ZipArchive {
  private constructor(private readonly zip: yauzl.ZipFile) {}

  static async open(file: string): Promise<ZipArchive> {
    const reader = new BlockReader(fs.openSync(file, "r"));
    const size = fs.fstatSync(reader.fd).size;
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      // decodeStrings off: names are decoded (GB18030 included) and checked by us, per entry.
      yauzl.fromRandomAccessReader(reader, size, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false }, (error, opened) =>
        error ? (reader.closeNow(), reject(new BrokenArchiveError(`The upload is not a readable ZIP archive (${error.message})`))) : resolve(opened),
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

  /**
   * An entry's bytes; refuses to read past `maxBytes` whatever the entry declares, and refuses an
   * entry whose real size differs from its declared one. yauzl hands over the stored bytes (after
   * checking the local header against the central directory); they are inflated in one call, which
   * for the many small files of a vault is about twice as fast as a stream per entry.
   */
  async read(entry: ArchiveEntry, maxBytes: number): Promise<Buffer> {
    if (entry.uncompressedSize > maxBytes) throw new BrokenArchiveError(`${entry.name} is larger than ${maxBytes} bytes`);
    const method = entry.raw.compressionMethod;
    if (method !== 0 && method !== 8) throw new BrokenArchiveError(`${entry.name} uses an unsupported compression method (${method})`);
    if (entry.raw.isEncrypted()) throw new BrokenArchiveError(`${entry.name} is encrypted`);
    const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
      this.zip.openReadStream(entry.raw, { decodeFileData: false } as yauzl.ZipFileOptions, (error, opened) =>
        error ? reject(new BrokenArchiveError(`${entry.name} cannot be read (${error.message})`)) : resolve(opened),
      ),
    );
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
    } catch (error) {
      throw new BrokenArchiveError(`${entry.name} is damaged (${(error as Error).message})`);
    }
    const stored = Buffer.concat(chunks);
    let bytes: Buffer;
    try {
      // One byte past the declared size is enough to tell a lie, and no more is ever inflated.
      bytes = method === 8 ? inflateRawSync(stored, { maxOutputLength: Math.min(maxBytes, entry.uncompressedSize) + 1 }) : stored;
    } catch (error) {
      const tooLong = (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE";
      throw new BrokenArchiveError(`${entry.name} is damaged (${tooLong ? "larger than it declares" : (error as Error).message})`);
    }
    if (bytes.length !== entry.uncompressedSize) {
      throw new BrokenArchiveError(`${entry.name} is damaged (it declares ${entry.uncompressedSize} bytes but holds ${bytes.length})`);
    }
    return bytes;
  }

  close(): void {
    this.zip.close();
  }
}

/**
 * yauzl's reads through one cached 64 KiB block of the file. yauzl reads the central directory
 * and each local header a few dozen bytes at a time, each an asynchronous read of its own: for a
 * vault of 10,000 small notes that was 40,000 trips to the thread pool and a third of an import's
 * CPU. Reads are nearly sequential, so one block serves hundreds of them; a range larger than a
 * block (a big entry's data) is read on its own. Memory stays at one block.
 */
class BlockReader extends yauzl.RandomAccessReader {
  private static readonly BLOCK = 64 * 1024;
  private block = Buffer.alloc(0);
  private blockStart = 0;
  private closed = false;

  constructor(readonly fd: number) {
    super();
  }

  private bytes(start: number, end: number): Buffer {
    if (start >= this.blockStart && end <= this.blockStart + this.block.length) {
      return this.block.subarray(start - this.blockStart, end - this.blockStart);
    }
    const length = end - start;
    const buffer = Buffer.allocUnsafe(Math.max(length, BlockReader.BLOCK));
    const read = fs.readSync(this.fd, buffer, 0, buffer.length, start);
    const got = buffer.subarray(0, read);
    if (length <= BlockReader.BLOCK) {
      this.block = got;
      this.blockStart = start;
    }
    // Past the end of the file: fewer bytes than asked, which yauzl reports as truncation.
    return got.subarray(0, Math.min(length, read));
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (error: Error | null) => void): void {
    let error: Error | null = null;
    try {
      const bytes = this.bytes(position, position + length);
      bytes.copy(buffer, offset);
      if (bytes.length < length) error = new Error("unexpected EOF");
    } catch (caught) {
      error = caught as Error;
    }
    process.nextTick(callback, error);
  }

  override _readStreamForRange(start: number, end: number): Readable {
    try {
      // No copy: a cached block is replaced by a new buffer, never written over.
      return Readable.from([this.bytes(start, end)], { objectMode: false });
    } catch (error) {
      return new Readable({ read() { this.destroy(error as Error); } });
    }
  }

  override close(callback: (error: Error | null) => void): void {
    this.closeNow();
    process.nextTick(callback, null);
  }

  closeNow(): void {
    if (this.closed) return;
    this.closed = true;
    fs.closeSync(this.fd);
  }
}
