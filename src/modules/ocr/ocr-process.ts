import os from "node:os";
import path from "node:path";
import type { Subprocess } from "bun";
import { log } from "../../log";
import { parseOcrReply, type OcrReply } from "./ocr-messages";

/** A picture's lines in reading order, or why it cannot be read (for good: the picture's fault). */
export type PictureReading = { lines: string[] } | { unreadable: string };

/** The OCR process could not answer (it would not start, or died or hung twice on one picture's turn). */
export class OcrUnavailableError extends Error {}

export interface OcrProcessOptions {
  /** Past this resident memory the process is replaced after its answer (the worker's own is untouched). */
  maxRssBytes?: number;
  /** One picture may take this long (a long screenshot is read in parts) before the process is killed. */
  pictureTimeoutMs?: number;
  /** Loading the models may take this long. */
  startTimeoutMs?: number;
  threads?: number;
}

export interface OcrProcess {
  /** Reads the picture stored at `file`; one picture at a time, in the order asked. */
  read(file: string): Promise<PictureReading>;
  /** Kills the process (a later `read` starts another). */
  stop(): Promise<void>;
  /** The running process's id, if one runs. */
  readonly pid: number | undefined;
  /** Pictures the process was asked to read, and processes started, since this was made. */
  readonly stats: { pictures: number; starts: number };
}

export const OCR_MAX_RSS_BYTES = 512 * 1024 * 1024;
const PICTURE_TIMEOUT_MS = 120_000;
const START_TIMEOUT_MS = 60_000;
const ENTRY = path.join(import.meta.dir, "ocr-process-main.ts");

interface Running {
  child: Subprocess;
  replies: Map<number, (reply: OcrReply) => void>;
  exited: Promise<string>;
}

/**
 * The OCR process, seen from the worker: started at the first picture and kept warm, replaced
 * when it dies, is killed for taking too long, or grows past its memory bound. Requests go over
 * IPC one at a time; a picture whose turn kills the process twice is reported unreadable.
 */
export function createOcrProcess(options: OcrProcessOptions = {}): OcrProcess {
  const maxRssBytes = options.maxRssBytes ?? OCR_MAX_RSS_BYTES;
  const pictureTimeoutMs = options.pictureTimeoutMs ?? PICTURE_TIMEOUT_MS;
  const startTimeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
  const threads = options.threads ?? Math.min(4, os.availableParallelism());
  const stats = { pictures: 0, starts: 0 };
  let running: Promise<Running> | undefined;
  let current: Running | undefined;
  let turn: Promise<unknown> = Promise.resolve();
  let nextId = 1;

  function start(): Promise<Running> {
    stats.starts++;
    let onReady: (reply: OcrReply) => void = () => {};
    const ready = new Promise<OcrReply>((resolve) => (onReady = resolve));
    const replies = new Map<number, (reply: OcrReply) => void>();
    const child = Bun.spawn([process.execPath, ENTRY], {
      // Nothing of the service's environment (keys, URLs) is the OCR process's business.
      env: { PATH: process.env.PATH ?? "", OCR_THREADS: String(threads) },
      stdio: ["ignore", "inherit", "inherit"],
      serialization: "json",
      ipc(message) {
        const reply = parseOcrReply(message);
        if (!reply) return;
        if (reply.type === "ready" || reply.type === "failed") onReady(reply);
        else replies.get(reply.id)?.(reply);
      },
    });
    const exited = child.exited.then((code) => {
      const how = child.signalCode ? `was killed (${child.signalCode})` : `exited with status ${code}`;
      if (current?.child === child) current = undefined;
      for (const answer of replies.values()) answer({ type: "error", id: 0, error: `the OCR process ${how}`, rss: 0 });
      onReady({ type: "failed", error: `the OCR process ${how} while loading its models` });
      return how;
    });
    const entry: Running = { child, replies, exited };
    return within(ready, startTimeoutMs, "loading the OCR models").then(
      (reply) => {
        if (reply.type !== "ready") throw new OcrUnavailableError(reply.type === "failed" ? reply.error : "the OCR process did not start");
        current = entry;
        return entry;
      },
      (error: unknown) => {
        child.kill("SIGKILL");
        throw new OcrUnavailableError((error as Error).message);
      },
    );
  }

  async function started(): Promise<Running> {
    if (!running || !current) running = start();
    try {
      return await running;
    } catch (error) {
      running = undefined;
      throw error;
    }
  }

  async function ask(file: string): Promise<OcrReply> {
    const proc = await started();
    const id = nextId++;
    stats.pictures++;
    const answered = new Promise<OcrReply>((resolve) => proc.replies.set(id, resolve));
    try {
      proc.child.send({ id, path: file });
      const reply = await within(answered, pictureTimeoutMs, "reading one picture");
      // Past its bound (buffers of a large picture the allocator keeps): the next picture gets a fresh process.
      if (reply.type !== "ready" && reply.type !== "failed" && reply.rss > maxRssBytes) retire(proc);
      return reply;
    } catch (error) {
      proc.child.kill("SIGKILL");
      await proc.exited;
      return { type: "error", id, error: (error as Error).message, rss: 0 };
    } finally {
      proc.replies.delete(id);
    }
  }

  function retire(proc: Running) {
    if (current === proc) {
      current = undefined;
      running = undefined;
    }
    proc.child.kill("SIGTERM");
  }

  async function readNow(file: string): Promise<PictureReading> {
    let failure = "";
    for (let attempt = 1; attempt <= 2; attempt++) {
      const reply = await ask(file);
      if (reply.type === "read") return { lines: reply.lines };
      if (reply.type === "unreadable") return { unreadable: reply.error };
      failure = reply.type === "error" ? reply.error : "no answer";
      log.warn(`OCR of ${path.basename(file)} failed (${failure}); ${attempt === 1 ? "trying once more" : "giving up on it"}`);
    }
    return { unreadable: `the OCR process failed on it twice (${failure})` };
  }

  return {
    read(file) {
      const result = turn.then(() => readNow(file));
      turn = result.catch(() => undefined);
      return result;
    },
    async stop() {
      const proc = current;
      if (!proc) return;
      retire(proc);
      const forced = setTimeout(() => proc.child.kill("SIGKILL"), 5_000);
      await proc.exited;
      clearTimeout(forced);
    },
    get pid() {
      return current?.child.pid;
    },
    stats,
  };
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${Math.round(ms / 1000)} s`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
