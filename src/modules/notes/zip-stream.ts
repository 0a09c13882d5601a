/**
 * A ZIP of stored (uncompressed) files, streamed as its entries arrive. Each entry's bytes are at
 * hand before it is written, so its CRC-32 (native, `Bun.hash.crc32`) and sizes go in its local
 * header and no data descriptor follows; headers, text and small files are packed into shared
 * buffers, and larger byte parts go out as they are.
 * client-zip, which this replaces for the export, computes CRC-32 in JavaScript and enqueues five
 * small chunks per file: two thirds of an export's time. ZIP64 records are added when the archive
 * passes 4 GiB or 65,535 entries, as client-zip did.
 */
export interface ZipEntry {
  /** The path inside the archive, UTF-8. */
  name: string;
  lastModified: Date;
  /**
   * The file's bytes, or its parts one after another (text is written as UTF-8). Byte parts are
   * handed to the stream without a copy, so they must not change afterwards.
   */
  input: string | Uint8Array | (string | Uint8Array)[];
}

const LOCAL_HEADER = 30;
const CENTRAL_HEADER = 46;
const END_OF_CENTRAL_DIRECTORY = 22;
const ZIP64_END = 56 + 20;
/** Version 4.5 (ZIP64), made on Unix; UTF-8 names; regular file, rw-rw-r--. */
const VERSION = 45;
const MADE_BY = (3 << 8) | VERSION;
const UTF8_NAMES = 0x0800;
const FILE_MODE = 0o100664;
const MAX_32 = 0xffffffff;
const MAX_16 = 0xffff;
/** A pull hands the stream about this many bytes. */
const CHUNK = 256 * 1024;
/** Headers and text are written into buffers of this size. */
const BUFFER = 64 * 1024;
/** Byte parts this size and larger go out as they are, not copied. */
const SHARED_COPY_LIMIT = 512;

const encoder = new TextEncoder();

interface CentralRecord {
  name: Uint8Array;
  crc: number;
  size: number;
  offset: number;
  time: number;
  date: number;
}

export function zipStream(entries: AsyncIterable<ZipEntry>): ReadableStream<Uint8Array> {
  const iterator = entries[Symbol.asyncIterator]();
  const records: CentralRecord[] = [];
  let offset = 0;
  let finished = false;

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (finished) return;
        const chunk = new ChunkWriter();
        while (chunk.length < CHUNK) {
          const next = await iterator.next();
          if (next.done) {
            writeCentralDirectory(chunk, records, offset);
            finished = true;
            break;
          }
          offset += writeEntry(chunk, next.value, records, offset);
        }
        for (const part of chunk.parts()) controller.enqueue(part);
        if (finished) controller.close();
      },
      async cancel(reason) {
        await iterator.return?.(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Writes one local header and file; returns the bytes written. */
function writeEntry(chunk: ChunkWriter, entry: ZipEntry, records: CentralRecord[], offset: number): number {
  const name = encoder.encode(entry.name);
  if (name.length === 0 || name.length > MAX_16) throw new Error(`A ZIP entry name must be 1..65535 bytes: ${JSON.stringify(entry.name)}`);
  const { bytes: header, view, at } = chunk.reserve(LOCAL_HEADER + name.length);
  let crc = 0;
  let size = 0;
  for (const part of Array.isArray(entry.input) ? entry.input : [entry.input]) {
    const written = typeof part === "string" ? chunk.writeText(part) : chunk.writeBytes(part);
    crc = Bun.hash.crc32(written, crc);
    size += written.byteLength;
  }
  if (size >= MAX_32) throw new Error(`A ZIP entry over 4 GiB is not supported: ${entry.name}`);
  crc >>>= 0;
  const { time, date } = dosDateTime(entry.lastModified);
  view.setUint32(at, 0x04034b50, true);
  view.setUint16(at + 4, VERSION, true);
  view.setUint16(at + 6, UTF8_NAMES, true);
  view.setUint16(at + 8, 0, true); // stored
  view.setUint16(at + 10, time, true);
  view.setUint16(at + 12, date, true);
  view.setUint32(at + 14, crc, true);
  view.setUint32(at + 18, size, true);
  view.setUint32(at + 22, size, true);
  view.setUint16(at + 26, name.length, true);
  view.setUint16(at + 28, 0, true);
  header.set(name, at + LOCAL_HEADER);
  records.push({ name, crc, size, offset, time, date });
  return LOCAL_HEADER + name.length + size;
}

function writeCentralDirectory(chunk: ChunkWriter, records: CentralRecord[], start: number) {
  let size = 0;
  for (const record of records) {
    const zip64 = record.offset >= MAX_32;
    const extra = zip64 ? 12 : 0;
    const length = CENTRAL_HEADER + record.name.length + extra;
    const { view, bytes, at } = chunk.reserve(length);
    view.setUint32(at, 0x02014b50, true);
    view.setUint16(at + 4, MADE_BY, true);
    view.setUint16(at + 6, VERSION, true);
    view.setUint16(at + 8, UTF8_NAMES, true);
    view.setUint16(at + 10, 0, true);
    view.setUint16(at + 12, record.time, true);
    view.setUint16(at + 14, record.date, true);
    view.setUint32(at + 16, record.crc, true);
    view.setUint32(at + 20, record.size, true);
    view.setUint32(at + 24, record.size, true);
    view.setUint16(at + 28, record.name.length, true);
    view.setUint16(at + 30, extra, true);
    view.setUint16(at + 32, 0, true); // comment
    view.setUint16(at + 34, 0, true); // disk
    view.setUint16(at + 36, 0, true); // internal attributes
    view.setUint32(at + 38, (FILE_MODE << 16) >>> 0, true);
    view.setUint32(at + 42, zip64 ? MAX_32 : record.offset, true);
    bytes.set(record.name, at + CENTRAL_HEADER);
    if (zip64) {
      const field = at + CENTRAL_HEADER + record.name.length;
      view.setUint16(field, 0x0001, true);
      view.setUint16(field + 2, 8, true);
      view.setBigUint64(field + 4, BigInt(record.offset), true);
    }
    size += length;
  }
  const count = records.length;
  const zip64 = count >= MAX_16 || start >= MAX_32 || size >= MAX_32;
  if (zip64) {
    const { view, at } = chunk.reserve(ZIP64_END);
    view.setUint32(at, 0x06064b50, true);
    view.setBigUint64(at + 4, 44n, true);
    view.setUint16(at + 12, MADE_BY, true);
    view.setUint16(at + 14, VERSION, true);
    view.setUint32(at + 16, 0, true);
    view.setUint32(at + 20, 0, true);
    view.setBigUint64(at + 24, BigInt(count), true);
    view.setBigUint64(at + 32, BigInt(count), true);
    view.setBigUint64(at + 40, BigInt(size), true);
    view.setBigUint64(at + 48, BigInt(start), true);
    // The locator: where the ZIP64 end record starts.
    view.setUint32(at + 56, 0x07064b50, true);
    view.setUint32(at + 60, 0, true);
    view.setBigUint64(at + 64, BigInt(start + size), true);
    view.setUint32(at + 72, 1, true);
  }
  const { view, at } = chunk.reserve(END_OF_CENTRAL_DIRECTORY);
  view.setUint32(at, 0x06054b50, true);
  view.setUint16(at + 4, 0, true);
  view.setUint16(at + 6, 0, true);
  view.setUint16(at + 8, Math.min(count, MAX_16), true);
  view.setUint16(at + 10, Math.min(count, MAX_16), true);
  view.setUint32(at + 12, Math.min(size, MAX_32), true);
  view.setUint32(at + 16, Math.min(start, MAX_32), true);
  view.setUint16(at + 20, 0, true);
}

/** MS-DOS date and time in local time, two-second steps (what client-zip and unzip tools use). */
function dosDateTime(date: Date): { time: number; date: number } {
  return {
    time: (date.getSeconds() >> 1) | (date.getMinutes() << 5) | (date.getHours() << 11),
    date: (date.getDate() | ((date.getMonth() + 1) << 5) | ((date.getFullYear() - 1980) << 9)) & 0xffff,
  };
}

/**
 * A pull's output as a list of parts: headers and text written into shared buffers, and byte
 * parts of at least SHARED_COPY_LIMIT handed on as they are. A note's content is not copied: the
 * copies (into 256 KiB buffers) were half the bytes an export allocated, and the bytes allocated
 * are what sets how often the GC runs (with `start:api`'s memory settings, every few MB).
 */
class ChunkWriter {
  private done: Uint8Array[] = [];
  private current = new Uint8Array(0);
  private view = new DataView(this.current.buffer);
  /** Where the part being written into `current` starts, and where it ends so far. */
  private start = 0;
  private used = 0;
  length = 0;

  reserve(size: number): { bytes: Uint8Array; view: DataView; at: number } {
    if (this.used + size > this.current.length) {
      this.endPart();
      this.current = new Uint8Array(Math.max(BUFFER, size));
      this.view = new DataView(this.current.buffer);
      this.start = this.used = 0;
    }
    const at = this.used;
    this.used += size;
    this.length += size;
    return { bytes: this.current, view: this.view, at };
  }

  /** Writes text as UTF-8; returns the bytes written. */
  writeText(text: string): Uint8Array {
    // At most three UTF-8 bytes per UTF-16 unit; what is not used is given back.
    const room = text.length * 3;
    const { bytes, at } = this.reserve(room);
    const { written } = encoder.encodeInto(text, bytes.subarray(at, at + room));
    this.used -= room - written;
    this.length -= room - written;
    return bytes.subarray(at, at + written);
  }

  /** Writes bytes, copying small ones; returns them (or their copy). */
  writeBytes(part: Uint8Array): Uint8Array {
    if (part.byteLength < SHARED_COPY_LIMIT) {
      const { bytes, at } = this.reserve(part.byteLength);
      bytes.set(part, at);
      return bytes.subarray(at, at + part.byteLength);
    }
    this.endPart();
    this.done.push(part);
    this.length += part.byteLength;
    return part;
  }

  parts(): Uint8Array[] {
    this.endPart();
    return this.done;
  }

  private endPart() {
    if (this.used > this.start) this.done.push(this.current.subarray(this.start, this.used));
    this.start = this.used;
  }
}
