// `bun run restore <backup>`: brings a backup (a directory `bun run backup` or the service wrote)
// into DATA_DIR's notes database and files. The service must be stopped: the database file is
// replaced (the old one is kept beside it as rhizome.db.before-restore-<time>).
import fs from "node:fs";
import path from "node:path";
import { ConfigError, loadConfig } from "../src/config";
import { localPath } from "../src/db/client";
import { BackupRefusedError, restoreBackup } from "../src/modules/history/restore-backup";

try {
  const backup = process.argv[2];
  if (!backup) throw new ConfigError("Usage: bun run restore <backup directory>, e.g. bun run restore data/backups/rhizome-20261127T040000Z");
  if (!fs.existsSync(path.join(backup, "manifest.json"))) throw new ConfigError(`${backup} is not a backup (it has no manifest.json)`);
  const config = loadConfig();
  if (!config.libsqlUrl.startsWith("file:")) throw new ConfigError("LIBSQL_URL names a libSQL server: restore it with the server's own tools");
  assertStopped(config.dataDir);
  assertNotOpen(localPath(config.libsqlUrl));
  const manifest = restoreBackup(path.resolve(backup), { dbFile: localPath(config.libsqlUrl), filesDir: config.files.dir });
  console.log(`Restored ${backup} (taken ${manifest.created_at}: ${manifest.notes} notes, ${manifest.files} files) into ${config.dataDir}; start the service again`);
} catch (error) {
  if (error instanceof ConfigError) console.error(error.message);
  else if (error instanceof BackupRefusedError) console.error(`The backup ${process.argv[2]} is refused, and nothing was changed: ${error.message}`);
  else console.error(`Restore failed: ${(error as Error).message}`);
  process.exit(error instanceof ConfigError ? 2 : 1);
}

/** The embedded Postgres a running service starts leaves its pid file in DATA_DIR/pg. */
function assertStopped(dataDir: string): void {
  const pidFile = path.join(dataDir, "pg", "postmaster.pid");
  if (!fs.existsSync(pidFile)) return;
  const pid = Number.parseInt(fs.readFileSync(pidFile, "utf8").split("\n")[0]!, 10);
  try {
    process.kill(pid, 0);
  } catch {
    return; // a stale pid file: nothing runs
  }
  throw new ConfigError(`The service is running on ${dataDir} (its Postgres is pid ${pid}): stop it before restoring`);
}

/**
 * With DATABASE_URL there is no embedded Postgres to find; a process that has the notes database
 * open is the service (or another program) using it. Linux's /proc says which; elsewhere this
 * check finds nothing and the pid file above is the only one.
 */
function assertNotOpen(dbFile: string): void {
  const wanted = new Set([dbFile, `${dbFile}-wal`, `${dbFile}-shm`].map((file) => path.resolve(file)));
  let pids: string[];
  try {
    pids = fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid);
  } catch {
    return;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or another user's
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      if (wanted.has(target)) throw new ConfigError(`Process ${pid} has ${target} open (the service?): stop it before restoring`);
    }
  }
}
