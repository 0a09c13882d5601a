import fs from "node:fs";
import path from "node:path";

/** Deletes an archive task's uploaded file (kept apart so the queue and the reconciler need not load the ZIP reader). */
export function removeArchiveFile(archivesDir: string, name: string | null): void {
  if (name && archivesDir) fs.rmSync(path.join(archivesDir, path.basename(name)), { force: true });
}
