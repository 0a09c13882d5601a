/**
 * The real service as a child process (`bun run src/main.ts`), for tests that must kill it outright. It is spawned
 * detached, so it leads its own process group, and with no DATABASE_URL, so its embedded Postgres (under
 * `<dataDir>/pg`) is a child in that group: `kill()` sends SIGKILL to the whole group, as a power cut or the OOM
 * killer of a container would, and starting again on the same data directory is a restart after a crash.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { directoryForThisFile } from "./temporary-directory";

export interface ServiceProcess {
  pid: number;
  url: string;
  dataDir: string;
  /** Everything it has printed so far, stdout and stderr interleaved. */
  output(): string;
  /** SIGKILL to its process group (the service and its Postgres); resolves once both are gone. */
  kill(): Promise<void>;
  /** SIGTERM, as an operator stops it; SIGKILL to the group if it has not exited in `timeoutMs`. */
  stop(timeoutMs?: number): Promise<void>;
}

const ENTRY = path.resolve(import.meta.dir, "../../src/main.ts");
const LISTENING = /Rhizome API listening on (http:\/\/\S+) /;
const START_TIMEOUT_MS = 90_000;
const EXIT_TIMEOUT_MS = 10_000;
/** How long the killed Postgres may take to die. */
const DEATH_TIMEOUT_MS = 30_000;

/** Starts the service on a free loopback port; fails at once, with its output, if it exits before it listens. */
export async function startServiceProcess({
  dataDir,
  environment = {},
  startTimeoutMs = START_TIMEOUT_MS,
}: {
  dataDir: string;
  environment?: Record<string, string>;
  startTimeoutMs?: number;
}): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ["run", ENTRY], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      // Empty means unset: an outside DATABASE_URL or LIBSQL_URL would move its stores out of DATA_DIR.
      DATABASE_URL: "",
      LIBSQL_URL: "",
      ROLE: "all",
      DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      // Tests never reach the internet: public host names resolve to loopback.
      IMPORT_RESOLVE: "*=127.0.0.1",
      LOG_LEVEL: "info", // the "listening" line is info
      // Reading pictures' text costs a process and its models: only the OCR tests turn it on.
      OCR: "off",
      ...environment,
    },
  });
  const pid = child.pid!;
  reapAfterExit(pid);
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = new Promise<number | string | null>((resolve) => child.once("exit", (code, signal) => resolve(signal ?? code)));

  const url = await new Promise<string>((resolve, reject) => {
    const fail = (reason: string) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`the service ${reason}; its output:\n${output.trim() || "(none)"}`));
    };
    const poll = setInterval(() => {
      const match = LISTENING.exec(output);
      if (!match) return;
      clearInterval(poll);
      clearTimeout(timer);
      resolve(match[1]!);
    }, 20);
    const timer = setTimeout(() => {
      killGroup(pid);
      fail(`did not listen within ${startTimeoutMs} ms (killed)`);
    }, startTimeoutMs);
    void exited.then((how) => fail(`exited (${how}) before it listened`));
  });

  const postmasterPid = () => {
    try {
      return Number.parseInt(readFileSync(path.join(dataDir, "pg", "postmaster.pid"), "utf8").split("\n")[0]!, 10) || null;
    } catch {
      return null;
    }
  };
  const waitForExit = async (child: ChildProcess, timeoutMs: number) => {
    const timedOut = Bun.sleep(timeoutMs).then(() => "timed out" as const);
    return child.exitCode !== null || child.signalCode !== null || (await Promise.race([exited, timedOut])) !== "timed out";
  };

  const service: ServiceProcess = {
    pid,
    url,
    dataDir,
    output: () => output,
    async kill() {
      const postgres = postmasterPid();
      killGroup(pid);
      if (!(await waitForExit(child, EXIT_TIMEOUT_MS))) throw new Error(`service pid ${pid} survived SIGKILL`);
      if (postgres !== null && !(await dead(postgres, DEATH_TIMEOUT_MS))) {
        throw new Error(`embedded Postgres pid ${postgres} was still running ${DEATH_TIMEOUT_MS} ms after SIGKILL to group ${pid}`);
      }
    },
    async stop(timeoutMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      if (!(await waitForExit(child, timeoutMs))) killGroup(pid);
      await exited;
    },
  };
  started.add(service);
  void exited.then(() => started.delete(service));
  return service;
}

/** Every service process started here that has not exited yet. */
const started = new Set<ServiceProcess>();

/**
 * A data directory for the service processes this file starts, removed once its tests are done and
 * every service still running in it has stopped. Call it at the top of a test file, as directoryForThisFile.
 */
export function serviceDataDirForThisFile(prefix = "rhizome-service-"): string {
  const dataDir: string = directoryForThisFile(prefix, {
    mode: 0o711,
    beforeRemoval: async () => {
      for (const service of [...started]) if (service.dataDir === dataDir) await service.stop();
    },
  });
  return dataDir;
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/**
 * Dead: gone, or a zombie. The dead service's Postgres is reparented to init, which reaps it when it gets round to it
 * (here after ~2 s); the restart does not wait for that, as a service manager would not (the service removes a
 * postmaster.pid that names a zombie).
 */
async function dead(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const stat = readFileOrNull(`/proc/${pid}/stat`);
    if (stat === null || stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return true;
    if (Date.now() > deadline) return false;
    await Bun.sleep(20);
  }
}

function readFileOrNull(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

// `bun test` fires no exit event: a watchdog in its own session kills the service's group once this process is gone.
// It also ends once the group is empty (the service stopped or was killed), so it never signals a reused group id.
const REAPER = `while kill -0 "$1" 2>/dev/null && kill -0 -"$2" 2>/dev/null; do sleep 0.5; done; kill -KILL -"$2" 2>/dev/null`;

function reapAfterExit(servicePid: number): void {
  spawn("sh", ["-c", REAPER, "rhizome-service-reaper", String(process.pid), String(servicePid)], {
    detached: true,
    stdio: "ignore",
  }).unref();
}
