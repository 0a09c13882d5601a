import fs from "node:fs";
import path from "node:path";
import Libsql from "libsql";
import { abortableSleep } from "../../abortable-sleep";

/** The lock's own file in BACKUP_DIR; never a backup's name (`listBackups`), never removed. */
const BACKUP_LOCK_FILE = ".backup-lock";

const RETRY_MS = 200;

export interface BackupLock {
  release(): void;
}

export interface BackupLockWait {
  /** Told once, when another backup holds the directory and this one starts waiting. */
  onWait?: () => void;
  /** Stops the wait (a job being stopped): rejects with its reason. */
  signal?: AbortSignal;
}

/**
 * Waits until no other backup works in `backupDir` (the service's scheduled one, `bun run backup`,
 * in this process or any other), then holds it until `release`. The lock is SQLite's exclusive
 * transaction on a file of its own: a lock the kernel drops when its process ends, so a crashed
 * backup leaves no stale lock behind (a pid in a lock file could not tell a dead holder from a live
 * one in another container, and two waiters could each remove it).
 */
export async function holdBackupLock(backupDir: string, { onWait, signal }: BackupLockWait = {}): Promise<BackupLock> {
  fs.mkdirSync(backupDir, { recursive: true });
  // No busy timeout: a wait inside SQLite would hold this thread (the API's, in the service).
  const connection = new Libsql(path.join(backupDir, BACKUP_LOCK_FILE), { timeout: 0 });
  for (let told = false; ; told = true) {
    try {
      connection.exec("BEGIN EXCLUSIVE");
      return {
        release() {
          try {
            connection.exec("COMMIT");
          } finally {
            connection.close();
          }
        },
      };
    } catch (error) {
      if ((error as { code?: string }).code !== "SQLITE_BUSY") {
        connection.close();
        throw error;
      }
    }
    if (!told) onWait?.();
    try {
      await abortableSleep(RETRY_MS, signal);
    } catch (error) {
      connection.close();
      throw error;
    }
  }
}
