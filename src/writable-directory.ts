import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { StartupError, describeCause } from "./startup-error";

/** Creates the directory and proves it writable now, so a bad DATA_DIR fails the start in one line, not a later write. */
export async function ensureWritableDirectory(dir: string, setting: string): Promise<void> {
  const probe = path.join(dir, `.write-check-${process.pid}`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(probe, "");
    await rm(probe);
  } catch (error) {
    throw new StartupError(
      `${setting} ${dir} is not a writable directory: ${describeCause(error)}; choose a directory this user (uid ${process.getuid?.()}) can write, or fix its permissions`,
    );
  }
}
