import { deflateRawSync } from "node:zlib";

export interface ZipEntrySpec {
  /** The name as text (UTF-8, flagged as such) or raw bytes (no UTF-8 flag: e.g. GBK from Chinese Windows). */
  name: string | Uint8Array;
  data?: Uint8Array | string;
  deflate?: boolean;
  /** Lie about the uncompressed size in both headers (a zip bomb that hides its size). */
  declaredSize?: number;
}

/**
 * A ZIP built byte by byte, for tests that need what zip libraries refuse to write: raw GBK
 * names without the UTF-8 flag, `../` names, lying sizes. Stored or deflated entries, no ZIP64.
 */
export function buildZip(entries: ZipEntrySpec[]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const utf8 = typeof entry.name === "string";
    const name = utf8 ? Buffer.from(entry.name as string, "utf8") : Buffer.from(entry.name as Uint8Array);
    const data = typeof entry.data === "string" ? Buffer.from(entry.data, "utf8") : Buffer.from(entry.data ?? new Uint8Array());
    const stored = entry.deflate ? deflateRawSync(data) : data;
    const crc = Bun.hash.crc32(data);
    const size = entry.declaredSize ?? data.length;
    const flags = utf8 ? 0x800 : 0;
    const method = entry.deflate ? 8 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(stored.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(stored.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, stored);
    centrals.push(central, name);
    offset += local.length + name.length + stored.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}
