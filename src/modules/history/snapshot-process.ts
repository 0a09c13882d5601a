// Run as its own process by takeBackup: `VACUUM INTO` and `PRAGMA integrity_check` are synchronous
// in libsql's local binding, and on a large database they would hold the event loop of the
// process that asked (the API itself, with ROLE=all) for seconds. Prints the check's result as JSON.
//
// What a snapshot must not do is make the service's writes wait (bench:history measures it):
// - it runs at the lowest CPU priority, so on a busy machine the service's requests go first;
// - `VACUUM INTO` holds one read transaction, during which the write-ahead log cannot be folded
//   back into the database and grows with every write; the first write after it would fold all of
//   that in its commit. This process folds it (a passive checkpoint, which never blocks writers)
//   as soon as its read ends, so the service's next automatic checkpoint finds little left;
// - the snapshot is written to a scratch file with no syncing and then
//   copied to its place a few MiB at a time, each piece synced before the next: the disk's queue
//   never holds more than one piece ahead of the service's own fsyncs, where syncing the whole
//   file at once (or the kernel writing it back later) would queue hundreds of MiB in front of them.
import fs from "node:fs";
import os from "node:os";
import { createClient } from "@libsql/client";
import { checkSnapshot } from "./backups";

const PIECE_BYTES = 8 * 1024 * 1024;

const [source, target] = process.argv.slice(2);
try {
  os.setPriority(19);
} catch {
  // Not allowed here: the snapshot still works, at normal priority.
}
const scratch = `${target!}.vacuum`;
try {
  const snapshotMs = await snapshotInto(source!, scratch);
  await copyDurably(scratch, target!);
  // Gone before the kernel wrote it back, its pages are never written at all.
  fs.rmSync(scratch, { force: true });
  console.log(JSON.stringify({ snapshotMs, ...(await checkSnapshot(target!)) }));
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 1;
} finally {
  fs.rmSync(scratch, { force: true });
}

/** `VACUUM INTO` the scratch file, then the checkpoint its read held back; returns how long the snapshot took. */
async function snapshotInto(database: string, file: string): Promise<number> {
  const client = createClient({ url: `file:${database}` });
  try {
    await client.execute("PRAGMA busy_timeout = 5000");
    // `VACUUM INTO` syncs its output as this connection's `synchronous` says (strace shows the
    // fsyncs): one sync of the whole file, queued in front of every write of the service's. The
    // scratch file needs none; the copy makes the snapshot durable.
    await client.execute("PRAGMA synchronous = OFF");
    const started = performance.now();
    await client.execute({ sql: "VACUUM INTO ?", args: [file] });
    const snapshotMs = performance.now() - started;
    // The checkpoint writes the live database: it syncs as the service does.
    await client.execute("PRAGMA synchronous = FULL");
    await client.execute("PRAGMA wal_checkpoint(PASSIVE)");
    return snapshotMs;
  } finally {
    client.close();
  }
}

/** Copies `from` to `to` piece by piece, each piece on disk (fdatasync) before the next is written. */
async function copyDurably(from: string, to: string): Promise<void> {
  const input = fs.openSync(from, "r");
  const output = fs.openSync(to, "w");
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
