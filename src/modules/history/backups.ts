import fs from "node:fs";
import path from "node:path";
import Libsql from "libsql";
import { blobPath } from "../files/blob-store";
import { holdBackupLock } from "./backup-lock";
import { log } from "../../log";

/** A backup: `<BACKUP_DIR>/rhizome-<UTC time>/` holding `rhizome.db`, `files/` (as FILES_DIR lays them out) and `manifest.json`. */
export interface BackupManifest {
  format: 1;
  created_at: string;
  notes: number;
  files: number;
  bytes: number;
  integrity: "ok";
  /** How long the snapshot itself took (the only step that reads the live database). */
  snapshot_ms: number;
}

export interface BackupPlace {
  /** The live notes database file. */
  dbFile: string;
  filesDir: string;
  backupDir: string;
  keep: number;
}

const NAME = /^rhizome-\d{8}T\d{6}(\d{3})?Z$/;

export interface BackupOptions {
  /** The backup's time and name; by default the moment it starts, after any wait for another backup. */
  now?: Date;
  /** Told once when another backup is running in the directory and this one waits for it to end. */
  onWait?: () => void;
}

/**
 * Takes a backup while the service may be writing, once no other backup runs in `backupDir` (they
 * would remove each other's `.partial`): the files the store holds are hard-linked (a blob never
 * changes under its name; copied when links are impossible), then the database's pages as one read
 * transaction sees them (writers go on in WAL mode), then any blob it names that was added
 * meanwhile. The copy is checked (`PRAGMA integrity_check`, every named blob present) before it is
 * renamed into place and counts; the oldest past `keep` are removed.
 */
export async function takeBackup(place: BackupPlace, options: BackupOptions = {}): Promise<{ dir: string; manifest: BackupManifest }> {
  const lock = await holdBackupLock(place.backupDir, { onWait: options.onWait });
  try {
    return await takeBackupHoldingLock(place, options.now ?? new Date());
  } finally {
    lock.release();
  }
}

/**
 * The scheduled job's backup: taken only if the newest is `hours` old once no other backup runs,
 * so a job that waited for `bun run backup` (or for the previous hour's job) does not take a second
 * one at once and push an older backup out of the kept ones. Null when none was due. `signal`
 * (the job's) ends a wait for another backup, so the service's shutdown does not wait for that one.
 */
export async function takeDueBackup(place: BackupPlace, hours: number, signal?: AbortSignal): Promise<{ dir: string; manifest: BackupManifest } | null> {
  if (!backupDue(place.backupDir, hours)) return null;
  const lock = await holdBackupLock(place.backupDir, { signal });
  try {
    return backupDue(place.backupDir, hours) ? await takeBackupHoldingLock(place, new Date()) : null;
  } finally {
    lock.release();
  }
}

async function takeBackupHoldingLock(place: BackupPlace, now: Date): Promise<{ dir: string; manifest: BackupManifest }> {
  const name = `rhizome-${now.toISOString().replace(/[-:]/g, "").replace(/\.(\d{3})Z$/, "$1Z")}`;
  const final = path.join(place.backupDir, name);
  const partial = `${final}.partial`;
  fs.rmSync(partial, { recursive: true, force: true });
  // Only this user may enter: a backup holds what the database does (password hashes, sessions, tokens' hashes).
  fs.mkdirSync(partial, { mode: 0o700 });
  fs.mkdirSync(path.join(partial, "files"));
  try {
    for (const sha256 of listBlobs(place.filesDir)) linkBlob(place.filesDir, path.join(partial, "files"), sha256);
    const snapshotFile = path.join(partial, "rhizome.db");
    const { snapshotMs, ...checked } = await snapshotInAnotherProcess(place.dbFile, snapshotFile);
    let bytes = fs.statSync(snapshotFile).size;
    for (const sha256 of checked.blobs) {
      const target = blobPath(path.join(partial, "files"), sha256);
      if (!fs.existsSync(target)) linkBlob(place.filesDir, path.join(partial, "files"), sha256);
      if (!fs.existsSync(target)) throw new Error(`stored file ${sha256} is missing from ${place.filesDir}`);
      bytes += fs.statSync(target).size;
    }
    const manifest: BackupManifest = { format: 1, created_at: now.toISOString(), notes: checked.notes, files: checked.blobs.length, bytes, integrity: "ok", snapshot_ms: Math.round(snapshotMs) };
    fs.writeFileSync(path.join(partial, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    fs.renameSync(partial, final);
    syncDirectory(place.backupDir);
    rotateBackups(place.backupDir, place.keep);
    return { dir: final, manifest };
  } catch (error) {
    fs.rmSync(partial, { recursive: true, force: true });
    throw error;
  }
}

/** The snapshot and its check, by snapshot-process.ts in a process of its own (both block the thread they run on). */
async function snapshotInAnotherProcess(source: string, target: string): Promise<{ snapshotMs: number; notes: number; blobs: string[] }> {
  const child = Bun.spawn([process.execPath, "run", path.join(import.meta.dir, "snapshot-process.ts"), source, target], { stdout: "pipe", stderr: "pipe" });
  const [output, errors, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`the snapshot failed: ${errors.trim() || `exit ${code}`}`);
  return JSON.parse(output.trim().split("\n").at(-1)!) as { snapshotMs: number; notes: number; blobs: string[] };
}

/**
 * A snapshot passes `PRAGMA integrity_check` and is a notes database; returns what it holds. Run on
 * a backup's copy before a restore too, so nothing in its schema runs with the service's trust.
 */
export function checkSnapshot(file: string): { notes: number; blobs: string[] } {
  const connection = new Libsql(file, { timeout: 5000 });
  try {
    connection.exec("PRAGMA trusted_schema = OFF");
    let verdict: string;
    try {
      verdict = (connection.prepare("PRAGMA integrity_check").raw().all() as unknown[][]).map((row) => String(row[0])).join("; ");
    } catch (error) {
      verdict = (error as Error).message; // damage the check cannot even walk past
    }
    if (verdict !== "ok") throw new Error(`the snapshot failed PRAGMA integrity_check: ${verdict}`);
    const notes = Number((connection.prepare("select (select count(*) from notes) + (select count(*) from trashed_notes)").raw().get() as unknown[])[0]);
    const blobs = (connection.prepare("select distinct sha256 from files").raw().all() as unknown[][]).map((row) => String(row[0]));
    return { notes, blobs };
  } finally {
    connection.close();
  }
}

/** The backups in `backupDir`, newest first. */
export function listBackups(backupDir: string): string[] {
  const names = fs.existsSync(backupDir) ? fs.readdirSync(backupDir).filter((name) => NAME.test(name)) : [];
  return names.sort().reverse().map((name) => path.join(backupDir, name));
}

function rotateBackups(backupDir: string, keep: number): void {
  for (const old of listBackups(backupDir).slice(keep)) fs.rmSync(old, { recursive: true, force: true });
  // A backup interrupted by a crash leaves its `.partial`; it never counted.
  for (const name of fs.readdirSync(backupDir)) if (name.endsWith(".partial")) fs.rmSync(path.join(backupDir, name), { recursive: true, force: true });
}

/** Whether the newest backup is older than `hours` (or there is none): the scheduled job's question. */
export function backupDue(backupDir: string, hours: number, now = Date.now()): boolean {
  const newest = listBackups(backupDir)[0];
  if (!newest) return true;
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(newest, "manifest.json"), "utf8")) as BackupManifest;
    return now - Date.parse(manifest.created_at) >= hours * 3600_000;
  } catch {
    return true;
  }
}

/** The directory's entries (a rename into it) on disk: a backup that counts survives a power cut. */
export function syncDirectory(dir: string): void {
  const fd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function listBlobs(dir: string): string[] {
  const blobs: string[] = [];
  for (const shard of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    if (!/^[0-9a-f]{2}$/.test(shard)) continue;
    for (const name of fs.readdirSync(path.join(dir, shard))) if (/^[0-9a-f]{64}$/.test(name)) blobs.push(name);
  }
  return blobs;
}

function linkBlob(fromDir: string, toDir: string, sha256: string): void {
  const from = blobPath(fromDir, sha256);
  const to = blobPath(toDir, sha256);
  fs.mkdirSync(path.dirname(to), { recursive: true });
  try {
    fs.linkSync(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return; // removed since it was listed: no row names it any more
    if (code === "EEXIST") return;
    try {
      fs.copyFileSync(from, to);
    } catch (copyError) {
      if ((copyError as NodeJS.ErrnoException).code !== "ENOENT") throw copyError;
      log.debug(`stored file ${sha256} went before it was copied`);
    }
  }
}
