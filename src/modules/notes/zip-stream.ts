/**
 * A ZIP of stored (uncompressed) files, streamed as its entries arrive. Each entry's bytes are at
 * hand before it is written, so its CRC-32 (native, `Bun.hash.crc32`) and sizes go in its local
 * header and no data descriptor follows. It is a direct stream (Bun's `type: "direct"`): every
 * write is copied into the destination's own buffer at once, so headers, text and small files are
 * gathered in one reused buffer and written when it is full (a large file's bytes are written as
 * they are), with no chunks to allocate or queue (chunks of 256 KiB, and then a queue of two parts
 * a file, were a fifth of an export's time; two writes a note, a third of what remained).
 * client-zip, which this replaces for the export, computes CRC-32 in JavaScript and enqueues five
 * small chunks per file: two thirds of an export's time. ZIP64 records are added when the archive
 * passes 4 GiB or 65,535 entries, as client-zip did.
 */
export interface ZipEntry {
  /** The path inside the archive, UTF-8. */
  name: string;
  lastModified: Date;
  /** The file's bytes, or its parts one after another (text is written as UTF-8). */
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
/** The buffer headers and text are written from; an entry whose text needs more gets its own. */
const BUFFER = 64 * 1024;

const encoder = new TextEncoder();

export function zipStream(entries: AsyncIterable<ZipEntry>): ReadableStream<Uint8Array> {
  const iterator = entries[Symbol.asyncIterator]();
  let cancelled = false;
  const source: Bun.DirectUnderlyingSource<Uint8Array> = {
    type: "direct",
    // Bun.serve and whole-body reads call this once; a reader's reads wait on the writes' promises.
    async pull(controller: ReadableStreamDirectController) {
      const out = new DirectWriter(controller);
      const directory = new CentralDirectory();
      let offset = 0;
      try {
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
          if (cancelled) return;
          offset += writeEntry(out, next.value, directory, offset);
          // The destination took the bytes either way; a promise asks to wait until it has drained.
          const backpressure = out.takeBackpressure();
          if (backpressure) await backpressure;
        }
      } catch (error) {
        // An entry that cannot be written ends the source too (a source that failed has ended already).
        await iterator.return?.(undefined);
        throw error;
      }
      if (cancelled) return;
      writeEnd(out, directory, offset);
      out.flush();
      controller.close();
    },
    async cancel(reason) {
      // Writes after the client has gone are accepted and dropped: without this the export would run on.
      cancelled = true;
      await iterator.return?.(reason);
    },
  };
  // The DOM library's ReadableStream type, which this project compiles against, has no direct sources.
  return new ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>);
}

/** Writes one local header and file, and its central directory record; returns the bytes written. */
function writeEntry(out: DirectWriter, entry: ZipEntry, directory: CentralDirectory, offset: number): number {
  const parts = Array.isArray(entry.input) ? entry.input : [entry.input];
  // The header needs the CRC and size of all the parts, so the name and text are encoded (after
  // the header) first; text takes at most three UTF-8 bytes per UTF-16 unit, and what is not used
  // is given back. Small byte parts (a note's text) are copied in with them, so a buffer of many
  // files goes out in one write (a write each cost more than the copy); larger ones are written
  // as they are, after what comes before them.
  const nameRoom = entry.name.length * 3;
  let textRoom = 0;
  let byteSize = 0;
  for (const part of parts) {
    if (typeof part === "string") textRoom += part.length * 3;
    else byteSize += part.byteLength;
  }
  const copyBytes = LOCAL_HEADER + nameRoom + textRoom + byteSize <= BUFFER;
  const room = LOCAL_HEADER + nameRoom + textRoom + (copyBytes ? byteSize : 0);
  const { bytes, view, at } = out.reserve(room);
  const nameAt = at + LOCAL_HEADER;
  const nameLength = encoder.encodeInto(entry.name, bytes.subarray(nameAt, nameAt + nameRoom)).written;
  if (nameLength === 0 || nameLength > MAX_16) {
    out.giveBack(room);
    throw new Error(`A ZIP entry name must be 1..65535 bytes: ${JSON.stringify(entry.name)}`);
  }
  const start = nameAt + nameLength;
  let end = start;
  // The CRC runs over the file's bytes in order: those in the buffer since `checked`, then each
  // byte part written on its own.
  let checked = start;
  let crc = 0;
  let size = 0;
  const byteParts: { bytes: Uint8Array; after: number }[] = [];
  for (const part of parts) {
    if (typeof part === "string") {
      end += encoder.encodeInto(part, bytes.subarray(end, at + room)).written;
    } else if (copyBytes) {
      bytes.set(part, end);
      end += part.byteLength;
    } else {
      crc = Bun.hash.crc32(part, Bun.hash.crc32(bytes.subarray(checked, end), crc));
      size += part.byteLength;
      byteParts.push({ bytes: part, after: end });
      checked = end;
    }
  }
  crc = Bun.hash.crc32(bytes.subarray(checked, end), crc) >>> 0;
  size += end - start;
  if (size >= MAX_32) throw new Error(`A ZIP entry over 4 GiB is not supported: ${entry.name}`);
  out.giveBack(at + room - end);
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
  view.setUint16(at + 26, nameLength, true);
  view.setUint16(at + 28, 0, true);
  directory.add(bytes.subarray(nameAt, start), { crc, size, offset, time, date });
  for (const part of byteParts) out.writeAfter(part.after, part.bytes);
  return LOCAL_HEADER + nameLength + size;
}

/**
 * The central directory, each file's record written as the file is: one growing buffer rather than
 * an object and an encoded name per file kept to the end (for 10,000 notes, 20,000 small objects
 * that outlive every young collection).
 */
class CentralDirectory {
  private bytes = new Uint8Array(BUFFER);
  private view = new DataView(this.bytes.buffer);
  length = 0;
  count = 0;

  add(name: Uint8Array, file: { crc: number; size: number; offset: number; time: number; date: number }) {
    const zip64 = file.offset >= MAX_32;
    const extra = zip64 ? 12 : 0;
    const at = this.reserve(CENTRAL_HEADER + name.length + extra);
    const view = this.view;
    view.setUint32(at, 0x02014b50, true);
    view.setUint16(at + 4, MADE_BY, true);
    view.setUint16(at + 6, VERSION, true);
    view.setUint16(at + 8, UTF8_NAMES, true);
    view.setUint16(at + 10, 0, true);
    view.setUint16(at + 12, file.time, true);
    view.setUint16(at + 14, file.date, true);
    view.setUint32(at + 16, file.crc, true);
    view.setUint32(at + 20, file.size, true);
    view.setUint32(at + 24, file.size, true);
    view.setUint16(at + 28, name.length, true);
    view.setUint16(at + 30, extra, true);
    view.setUint16(at + 32, 0, true); // comment
    view.setUint16(at + 34, 0, true); // disk
    view.setUint16(at + 36, 0, true); // internal attributes
    view.setUint32(at + 38, (FILE_MODE << 16) >>> 0, true);
    view.setUint32(at + 42, zip64 ? MAX_32 : file.offset, true);
    this.bytes.set(name, at + CENTRAL_HEADER);
    if (zip64) {
      const field = at + CENTRAL_HEADER + name.length;
      view.setUint16(field, 0x0001, true);
      view.setUint16(field + 2, 8, true);
      view.setBigUint64(field + 4, BigInt(file.offset), true);
    }
    this.count += 1;
  }

  /** The records written so far. */
  written(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  private reserve(size: number): number {
    if (this.length + size > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + size));
      grown.set(this.written());
      this.bytes = grown;
      this.view = new DataView(grown.buffer);
    }
    const at = this.length;
    this.length += size;
    return at;
  }
}

/** The central directory and the end records after the files, which start at `start`. */
function writeEnd(out: DirectWriter, directory: CentralDirectory, start: number) {
  out.write(directory.written());
  const { count, length: size } = directory;
  const zip64 = count >= MAX_16 || start >= MAX_32 || size >= MAX_32;
  if (zip64) {
    const { view, at } = out.reserve(ZIP64_END);
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
  const { view, at } = out.reserve(END_OF_CENTRAL_DIRECTORY);
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
 * Space handed out from one reused buffer whose bytes are written to a direct stream in order;
 * the destination copies each write, so the buffer can be filled again at once.
 */
class DirectWriter {
  private buffer: Uint8Array = new Uint8Array(BUFFER);
  private view: DataView = new DataView(this.buffer.buffer);
  /** Bytes before `written` have gone out; those up to `used` wait. */
  private written = 0;
  private used = 0;
  private backpressure: Promise<number> | undefined;

  constructor(private readonly controller: ReadableStreamDirectController) {}

  reserve(size: number): { bytes: Uint8Array; view: DataView; at: number } {
    if (this.used + size > this.buffer.length) {
      this.flush();
      if (size > this.buffer.length) this.replaceBuffer(new Uint8Array(size));
    }
    const at = this.used;
    this.used += size;
    return { bytes: this.buffer, view: this.view, at };
  }

  /** Returns the unused end of the last reservation. */
  giveBack(size: number) {
    this.used -= size;
  }

  /** Writes what waits, then `bytes` as they are. */
  write(bytes: Uint8Array) {
    this.writeAfter(this.used, bytes);
  }

  /** Writes what waits up to `position`, then `bytes` as they are. */
  writeAfter(position: number, bytes: Uint8Array) {
    this.writeOut(this.buffer.subarray(this.written, position));
    this.written = position;
    this.writeOut(bytes);
  }

  flush() {
    this.writeOut(this.buffer.subarray(this.written, this.used));
    this.written = this.used = 0;
    // A one-off large buffer is not kept.
    if (this.buffer.length > BUFFER) this.replaceBuffer(new Uint8Array(BUFFER));
  }

  /** The promise of the last write the destination asked to wait for, once. */
  takeBackpressure(): Promise<number> | undefined {
    const backpressure = this.backpressure;
    this.backpressure = undefined;
    return backpressure;
  }

  private writeOut(bytes: Uint8Array) {
    if (bytes.byteLength === 0) return;
    const result = this.controller.write(bytes);
    if (typeof result !== "number") this.backpressure = result;
  }

  private replaceBuffer(bytes: Uint8Array) {
    this.buffer = bytes;
    this.view = new DataView(bytes.buffer);
  }
}
