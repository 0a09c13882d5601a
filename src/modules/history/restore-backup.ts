import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { blobPath } from "../files/blob-store";
import { checkSnapshot, syncDirectory, type BackupManifest } from "./backups";

/** A backup refused before anything where it was to go changed; the message says what is wrong with it. */
export class BackupRefusedError extends Error {}

const MANIFEST = z.object({
  format: z.literal(1),
  created_at: z.iso.datetime(),
  notes: z.number().int().min(0),
  files: z.number().int().min(0),
  bytes: z.number().int().min(0),
  integrity: z.literal("ok"),
  snapshot_ms: z.number().min(0),
});

const SQLITE_HEADER = Buffer.from("SQLite format 3\0", "latin1");
const SHARD = /^[0-9a-f]{2}$/;
const SHA256 = /^[0-9a-f]{64}$/;

/** A stored file's place in a backup, as messages name it. */
function where(sha256: string): string {
  return `files/${sha256.slice(0, 2)}/${sha256}`;
}

/**
 * Brings a backup into a stopped service's place: the database file replaced (the one there kept
 * beside it as `rhizome.db.before-restore-<time>`), the backup's files added to the store.
 *
 * A backup may come from anywhere, so everything is checked first, on copies staged beside their
 * targets: the manifest, the database (a SQLite file that passes `PRAGMA integrity_check` and holds
 * notes), the files tree (plain files named by their SHA-256 in plain directories: a symbolic link
 * could bring in any file of the machine), each file's bytes against its name, and every file the
 * notes show present. Anything wrong throws BackupRefusedError with the staged copies removed: the
 * place is as it was. Only then do the files join the store and the database take its place.
 */
export function restoreBackup(backup: string, place: { dbFile: string; filesDir: string }, now = new Date()): BackupManifest {
  const manifest = readManifest(backup);
  const database = path.join(backup, "rhizome.db");
  assertSqliteFile(database);
  const blobs = backupBlobs(path.join(backup, "files"));

  const stamp = now.toISOString().replace(/[-:.]/g, "");
  const stagedDb = `${place.dbFile}.restoring-${stamp}`;
  const stagedFiles = path.join(place.filesDir, `.restoring-${stamp}`);
  // The first directory each mkdir made (none when all were there), so a refusal removes exactly those.
  const made: (string | undefined)[] = [];
  const staged: string[] = [];
  try {
    made.push(fs.mkdirSync(path.dirname(place.dbFile), { recursive: true }));
    copyChecked(database, stagedDb);
    let named: string[];
    try {
      named = checkSnapshot(stagedDb).blobs;
    } catch (error) {
      throw new BackupRefusedError(`its rhizome.db is not a sound notes database: ${(error as Error).message}`);
    }
    made.push(fs.mkdirSync(stagedFiles, { recursive: true }));
    for (const sha256 of blobs) {
      if (fs.existsSync(blobPath(place.filesDir, sha256))) continue;
      copyChecked(blobPath(path.join(backup, "files"), sha256), path.join(stagedFiles, sha256), sha256);
      staged.push(sha256);
    }
    const present = new Set(blobs);
    const missing = named.filter((sha256) => !present.has(sha256) && !fs.existsSync(blobPath(place.filesDir, sha256)));
    if (missing.length > 0) throw new BackupRefusedError(`its notes show ${missing.length} stored file(s) it does not hold, e.g. ${where(missing[0]!)}`);
  } catch (error) {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) fs.rmSync(`${stagedDb}${suffix}`, { force: true });
    fs.rmSync(stagedFiles, { recursive: true, force: true });
    // Directories made for the staged copies go too: only those copies were ever in them.
    for (const dir of made) if (dir) fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  for (const sha256 of staged) {
    const target = blobPath(place.filesDir, sha256);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.renameSync(path.join(stagedFiles, sha256), target);
    syncDirectory(path.dirname(target));
  }
  fs.rmSync(stagedFiles, { recursive: true, force: true });
  for (const suffix of ["", "-wal", "-shm"]) {
    const file = `${place.dbFile}${suffix}`;
    if (fs.existsSync(file)) fs.renameSync(file, `${place.dbFile}.before-restore-${stamp}${suffix}`);
  }
  fs.renameSync(stagedDb, place.dbFile);
  syncDirectory(path.dirname(place.dbFile));
  return manifest;
}

function readManifest(backup: string): BackupManifest {
  let text: string;
  try {
    text = fs.readFileSync(path.join(backup, "manifest.json"), "utf8");
  } catch {
    throw new BackupRefusedError("it has no readable manifest.json");
  }
  try {
    return MANIFEST.parse(JSON.parse(text));
  } catch {
    throw new BackupRefusedError(`its manifest.json is not a backup's manifest (format 1)`);
  }
}

function assertSqliteFile(file: string): void {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!stat) throw new BackupRefusedError("it has no rhizome.db");
  if (!stat.isFile()) throw new BackupRefusedError("its rhizome.db is not a plain file (a symbolic link, a directory or a device is refused)");
  const header = Buffer.alloc(SQLITE_HEADER.length);
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    fs.readSync(fd, header, 0, header.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (!header.equals(SQLITE_HEADER)) throw new BackupRefusedError("its rhizome.db is not a SQLite database");
}

/** The stored files of a backup's `files/`, as `takeBackup` lays them out; anything else is refused. */
function backupBlobs(dir: string): string[] {
  const stat = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!stat) return [];
  if (!stat.isDirectory()) throw new BackupRefusedError("its files is not a plain directory");
  const blobs: string[] = [];
  for (const shard of fs.readdirSync(dir)) {
    if (!SHARD.test(shard) || !fs.lstatSync(path.join(dir, shard)).isDirectory()) {
      throw new BackupRefusedError(`files/${shard} is not a directory of stored files (only plain directories named by two hex digits are; symbolic links are refused)`);
    }
    for (const name of fs.readdirSync(path.join(dir, shard))) {
      const entry = `files/${shard}/${name}`;
      if (!SHA256.test(name) || blobPath(dir, name) !== path.join(dir, shard, name)) throw new BackupRefusedError(`${entry} is not named as a stored file is (its SHA-256, under its first two hex digits)`);
      if (!fs.lstatSync(path.join(dir, shard, name)).isFile()) throw new BackupRefusedError(`${entry} is not a plain file (symbolic links are refused)`);
      blobs.push(name);
    }
  }
  return blobs;
}

/** Copies `from` (never through a symbolic link) to a new file `to`, on disk when it returns; with `sha256`, refuses bytes that hash otherwise. */
function copyChecked(from: string, to: string, sha256?: string): void {
  const input = fs.openSync(from, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  const hash = createHash("sha256");
  try {
    const output = fs.openSync(to, "wx");
    try {
      const buffer = Buffer.allocUnsafe(1024 * 1024);
      for (let read; (read = fs.readSync(input, buffer, 0, buffer.length, null)) > 0; ) {
        hash.update(buffer.subarray(0, read));
        for (let written = 0; written < read; ) written += fs.writeSync(output, buffer, written, read - written);
      }
      fs.fsyncSync(output);
    } finally {
      fs.closeSync(output);
    }
  } finally {
    fs.closeSync(input);
  }
  const found = hash.digest("hex");
  if (sha256 && found !== sha256) throw new BackupRefusedError(`${where(sha256)} does not hold what its name says (its bytes hash to ${found})`);
}
