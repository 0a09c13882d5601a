/**
 * How a space's table keeps its vectors: libSQL's FLOAT8 (a byte a dimension, scaled per vector), which
 * its DiskANN index copies into each node too. At 1,024 dimensions FLOAT32 took 12.5 KiB a passage with
 * the index, FLOAT8 about 4 (`bench:semantic` prints both, and how much of FLOAT32's top 10 it keeps).
 * Vectors cross the driver as float32 blobs either way: written through `storedVector`, read through
 * `readVector`, compared with a query made by `storedVector` (libSQL compares vectors of one type only).
 */
export const STORED_VECTOR_TYPE = "F8_BLOB";

/** SQL for the float32 blob bound as `parameter`, in the stored type. */
export function storedVector(parameter: string): string {
  return `vector8(${parameter})`;
}

/** SQL for a stored vector `column` as a float32 blob (for `blobVector`). */
export function readVector(column: string): string {
  return `vector32(${column})`;
}

/**
 * A vector as float32 blob: little-endian float32s. Always bound by name or inside an argument
 * array — libsql 0.5.29 spreads a lone Buffer or typed array given as the statement's only
 * positional argument into one argument per element, and aborts the process.
 */
export function vectorBlob(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength));
}

export function blobVector(blob: unknown): Float32Array {
  if (blob instanceof ArrayBuffer) return new Float32Array(blob.slice(0));
  if (ArrayBuffer.isView(blob)) return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
  throw new Error("not a vector blob");
}
