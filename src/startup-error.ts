/**
 * Start-up failures end the process with one line that says what is wrong and what to do. Code that
 * knows the cause throws a StartupError with that line; anything else is described from its error
 * code here, so a user never reads a stack trace for a bad setting or a busy port.
 */
export class StartupError extends Error {
  override name = "StartupError";
}

const SYSTEM_ERRORS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  ENOTDIR: "a part of the path is a file, not a directory",
  ENOENT: "no such file or directory",
  EADDRINUSE: "address already in use",
  EADDRNOTAVAIL: "address not available on this machine",
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ETIMEDOUT: "timed out",
  ECONNRESET: "connection reset",
};

/** The reason part of a one-line message: a known system error in words, else the error's own first line. */
export function describeCause(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code in SYSTEM_ERRORS) return `${SYSTEM_ERRORS[code]} (${code})`;
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n").find((line) => line.trim())?.trim() ?? "unknown error";
}

export function describeStartupFailure(error: unknown): string {
  if (error instanceof StartupError) return error.message;
  return `Rhizome could not start: ${describeCause(error)}. Run with LOG_LEVEL=debug for details.`;
}
