export interface UntilOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Named in the error, e.g. "task 3 to finish". */
  what?: string;
}

/**
 * Reads `read` every `intervalMs` until it returns something truthy (or what `done` accepts), and
 * returns that. Past `timeoutMs` it throws, naming what it waited for and the last value it read,
 * so a failure explains itself. An error thrown by `read` fails at once.
 */
export function until<T>(read: () => T | Promise<T>, options: UntilOptions & { done: (value: T) => boolean }): Promise<T>;
export function until<T>(read: () => T | Promise<T>, options?: UntilOptions): Promise<NonNullable<T>>;
export async function until<T>(
  read: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 20, what = "the condition", done = Boolean }: UntilOptions & { done?: (value: T) => boolean } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() >= deadline) throw new Error(`${what} not met within ${timeoutMs} ms; last saw ${describe(value)}`);
    await Bun.sleep(intervalMs);
  }
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
