// `bun run backup`: a backup now, from DATA_DIR alone (the same variables as the service: DATA_DIR,
// LIBSQL_URL, FILES_DIR, BACKUP_DIR, BACKUP_KEEP). It needs neither the running service nor the
// queue, and is safe while the service writes. Started while another backup runs in BACKUP_DIR (the
// service's scheduled one, or another `bun run backup`), it waits for that one and then takes its own.
import { ConfigError, loadConfig } from "../src/config";
import { localPath } from "../src/db/client";
import { takeBackup } from "../src/modules/history/backups";

try {
  const config = loadConfig();
  if (!config.libsqlUrl.startsWith("file:")) throw new ConfigError("LIBSQL_URL names a libSQL server: back it up with the server's own tools (this command copies a local database file)");
  const place = { dbFile: localPath(config.libsqlUrl), filesDir: config.files.dir, backupDir: config.backups.dir, keep: config.backups.keep };
  const { dir, manifest } = await takeBackup(place, { onWait: () => console.log(`Another backup is running in ${place.backupDir}; this one starts when it ends`) });
  console.log(`Backup written to ${dir}: ${manifest.notes} notes, ${manifest.files} files, ${manifest.bytes} bytes; PRAGMA integrity_check ok`);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : `Backup failed: ${(error as Error).message}`);
  process.exit(error instanceof ConfigError ? 2 : 1);
}
