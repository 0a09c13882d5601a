// Run as its own process by takeBackup: the copy and `PRAGMA integrity_check` are synchronous in
// libsql's local binding, and on a large database they would hold the event loop of the process
// that asked (the API itself, with ROLE=all) for seconds. Prints the check's result as JSON.
//
// The snapshot is the database's pages as one read transaction sees them (`sqlite_dbpage`), what
// SQLite's online backup API copies (libsql's binding does not offer that API). Not `VACUUM INTO`:
// libSQL's VACUUM replays each CREATE INDEX in the copy, where a vector index writes its row of
// `libsql_vector_meta_shadow`; then it copies that table too, appending rows as VACUUM does (no
// check that the table is empty), so the copy holds the key twice and fails `integrity_check` ("row
// not in PRIMARY KEY order"). It also rebuilds each vector index by inserting every vector again:
// 27 s for 5,000 vectors of 384 dimensions, where copying the pages takes 0.25 s.
//
// What a snapshot must not do is make the service's writes wait (bench:history measures it):
// - it runs at the lowest CPU priority, so on a busy machine the service's requests go first;
// - the read transaction holds back the write-ahead log's folding into the database, which then
//   grows with every write; the first write after it would fold all of that in its commit. This
//   process folds it (a passive checkpoint, which never blocks writers) as soon as its read ends,
//   so the service's next automatic checkpoint finds little left;
// - the pages are written to a scratch file with no syncing and then
//   copied to its place a few MiB at a time, each piece synced before the next: the disk's queue
//   never holds more than one piece ahead of the service's own fsyncs, where syncing the whole
//   file at once (or the kernel writing it back later) would queue hundreds of MiB in front of them.
import fs from "node:fs";
import os from "node:os";
import Libsql from "libsql";
import { checkSnapshot } from "./backups";

const PIECE_BYTES = 8 * 1024 * 1024;

const [source, target] = process.argv.slice(2);
try {
  os.setPriority(19);
} catch {
  // Not allowed here: the snapshot still works, at normal priority.
}
const scratch = `${target!}.pages`;
try {
  const snapshotMs = copyPages(source!, scratch);
  await copyDurably(scratch, target!);
  // Gone before the kernel wrote it back, its pages are never written at all.
  fs.rmSync(scratch, { force: true });
  console.log(JSON.stringify({ snapshotMs, ...checkSnapshot(target!) }));
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 1;
} finally {
  fs.rmSync(scratch, { force: true });
}

/** Writes the pages of `database`, as one read transaction sees them, into `file`; then the checkpoint its read held back. Returns how long the read took. */
function copyPages(database: string, file: string): number {
  const connection = new Libsql(database, { timeout: 5000 });
  const output = fs.openSync(file, "wx", 0o600);
  try {
    const started = performance.now();
    connection.exec("BEGIN");
    const pages = connection.prepare("select pgno, data from sqlite_dbpage order by pgno").raw().iterate() as Iterable<[number, Uint8Array]>;
    for (const [pgno, data] of pages) {
      // Read and write versions 1: a plain rollback-journal database, as VACUUM INTO made them, that
      // opens anywhere (even read-only) with no write-ahead log beside it (sqlite.org/fileformat.html).
      if (pgno === 1) data.set([1, 1], 18);
      for (let written = 0; written < data.byteLength; ) written += fs.writeSync(output, data, written);
    }
    connection.exec("COMMIT");
    const snapshotMs = performance.now() - started;
    connection.exec("PRAGMA wal_checkpoint(PASSIVE)");
    return snapshotMs;
  } finally {
    fs.closeSync(output);
    connection.close();
  }
}

/** Copies `from` to `to` piece by piece, each piece on disk (fdatasync) before the next is written. */
async function copyDurably(from: string, to: string): Promise<void> {
  const input = fs.openSync(from, "r");
  const output = fs.openSync(to, "w", 0o600);
  try {
    const buffer = Buffer.allocUnsafe(PIECE_BYTES);
    for (let position = 0; ; ) {
      const read = fs.readSync(input, buffer, 0, PIECE_BYTES, position);
      if (read === 0) break;
      for (let written = 0; written < read; ) written += fs.writeSync(output, buffer, written, read - written, position + written);
      position += read;
      fs.fdatasyncSync(output);
      // A breath between pieces, so a write of the service's that queued behind this one goes next.
      await Bun.sleep(1);
    }
    fs.fsyncSync(output);
  } finally {
    fs.closeSync(input);
    fs.closeSync(output);
  }
}
