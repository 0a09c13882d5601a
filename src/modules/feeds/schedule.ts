/** Each fetch is moved by up to this share of its interval, either way, so feeds added together spread out. */
export const JITTER = 0.1;
/** Failures double the wait, up to this. */
export const MAX_BACKOFF_MS = 24 * 3600_000;
/** A feed failing this long without a success is paused, with its reason. */
export const PAUSE_AFTER_FAILING_MS = 7 * 24 * 3600_000;
/** A `Retry-After` is honoured up to this; past it the server is treated as failing. */
const MAX_RETRY_AFTER_MS = 7 * 24 * 3600_000;

const jittered = (ms: number, random: () => number) => Math.round(ms * (1 + JITTER * (2 * random() - 1)));

/** When a feed that answered is fetched next: its interval from now, ±10 %. */
export function nextAfterSuccess(now: number, intervalMinutes: number, random: () => number = Math.random): number {
  return now + jittered(intervalMinutes * 60_000, random);
}

/**
 * When a feed whose fetch failed (`failures` in a row, this one counted) is tried next: its
 * interval, doubled for each failure before this one, at most 24 h, ±10 % — and never before the
 * server's `Retry-After`.
 */
export function nextAfterFailure(now: number, intervalMinutes: number, failures: number, retryAfterMs: number | null, random: () => number = Math.random): number {
  const backoff = Math.min(MAX_BACKOFF_MS, intervalMinutes * 60_000 * 2 ** Math.min(Math.max(failures - 1, 0), 20));
  return now + Math.max(jittered(backoff, random), Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
}

/** A `Retry-After` header (seconds, or an HTTP date) as milliseconds from `now`; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (!header) return null;
  const value = header.trim();
  if (/^\d{1,10}$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : null;
}
