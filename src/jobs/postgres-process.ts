/**
 * Runs the embedded Postgres's own programs: initdb once, then the postmaster. Every way a child can
 * fail (it cannot be spawned, it exits, it never says it is ready) settles the promise, so start-up
 * never hangs; a postmaster still running when this process exits is told to shut down.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { StartupError, describeCause } from "../startup-error";
import type { PostgresBinaries } from "./postgres-placement";

type RunAs = { uid: number; gid: number } | null;

// English messages whatever the machine's locale: readiness is read from the log.
const CHILD_ENV = { ...process.env, LC_ALL: "C", LANG: "C", LC_MESSAGES: "C" };
const READY = "database system is ready to accept connections";
const ADVICE = "; fix the cause above, or set DATABASE_URL to use another Postgres";

export async function runInitdb({
  binaries,
  pgDir,
  superuser,
  password,
  runAs,
  onLog,
}: {
  binaries: PostgresBinaries;
  pgDir: string;
  superuser: string;
  password: string;
  runAs: RunAs;
  onLog(line: string): void;
}): Promise<void> {
  // The password reaches initdb through a file only it (and this process) can read.
  const secretDir = await mkdtemp(path.join(tmpdir(), "rhizome-initdb-"));
  try {
    const passwordFile = path.join(secretDir, "password");
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
    if (runAs) {
      await chown(secretDir, runAs.uid, runAs.gid);
      await chown(passwordFile, runAs.uid, runAs.gid);
    }
    const args = [`--pgdata=${pgDir}`, "--auth=scram-sha-256", `--username=${superuser}`, `--pwfile=${passwordFile}`];
    const child = spawnChild(binaries.initdb, [...args, "--encoding=UTF8", "--no-locale"], runAs);
    const output = collectOutput(child, onLog);
    const code = await exitOf(child, "initdb");
    if (code !== 0) throw new StartupError(`initdb failed (exit ${code}): ${lastLines(output(), 3)}`);
  } finally {
    await rm(secretDir, { recursive: true, force: true });
  }
}

export interface PostmasterProcess {
  pid: number;
  /** Resolves once the postmaster has exited. */
  exited: Promise<void>;
}

/** Starts the postmaster and resolves when it accepts connections; rejects with its last log lines otherwise. */
export async function startPostmaster({
  binaries,
  pgDir,
  port,
  host,
  runAs,
  timeoutMs,
  onLog,
}: {
  binaries: PostgresBinaries;
  pgDir: string;
  port: number;
  host: string;
  runAs: RunAs;
  timeoutMs: number;
  onLog(line: string): void;
}): Promise<PostmasterProcess> {
  const args = ["-D", pgDir, "-p", String(port), "-c", `listen_addresses=${host}`, "-c", "unix_socket_directories="];
  const child = spawnChild(binaries.postgres, args, runAs);
  const stopOnExit = () => child.kill("SIGINT"); // fast shutdown, in case this process ends without stop()
  process.once("exit", stopOnExit);
  const exit = exitOf(child, "postgres").finally(() => process.off("exit", stopOnExit));
  let markReady = () => {};
  const ready = new Promise<"ready">((resolve) => (markReady = () => resolve("ready")));
  const output = collectOutput(child, (line) => {
    if (line.includes(READY)) markReady();
    onLog(line);
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)));
  const outcome = await Promise.race([ready, exit.then(() => "exited" as const), timeout]).finally(() => clearTimeout(timer));
  const exited = exit.then(
    () => undefined,
    () => undefined,
  );
  if (outcome === "ready") return { pid: child.pid!, exited };
  if (outcome === "timeout") {
    child.kill("SIGKILL");
    await exited;
    throw new StartupError(`embedded Postgres (cluster ${pgDir}) did not report ready within ${timeoutMs} ms: ${lastLines(output(), 3)}${ADVICE}`);
  }
  throw new StartupError(`embedded Postgres (cluster ${pgDir}) exited during start-up: ${lastLines(output(), 3)}${ADVICE}`);
}

function spawnChild(file: string, args: string[], runAs: RunAs): ChildProcess {
  return spawn(file, args, { env: CHILD_ENV, stdio: ["ignore", "pipe", "pipe"], ...(runAs ?? {}) });
}

/** The exit code; a child that could not be spawned at all rejects with a one-line reason. */
function exitOf(child: ChildProcess, name: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    child.once("error", (error) => reject(new StartupError(`could not run ${name}: ${describeCause(error)}`)));
    child.once("close", (code) => resolve(code));
  });
}

function collectOutput(child: ChildProcess, onLine: (line: string) => void): () => string[] {
  const recent: string[] = [];
  const read = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n")) {
      if (!line.trim()) continue;
      recent.push(line.trim());
      if (recent.length > 40) recent.shift();
      onLine(line.trim());
    }
  };
  child.stdout?.on("data", read);
  child.stderr?.on("data", read);
  return () => recent;
}

/** The most telling lines: FATAL/ERROR ones when there are any, else the last ones. */
function lastLines(lines: string[], count: number): string {
  const serious = lines.filter((line) => /\b(FATAL|PANIC|ERROR|error):/.test(line));
  return (serious.length ? serious : lines).slice(-count).join(" | ") || "no output";
}
