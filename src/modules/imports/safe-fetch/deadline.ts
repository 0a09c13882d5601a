import { ImportError } from "../import-error";
import type { FetchOptions } from "../platforms/types";
import { connectionFailure, displayUrl } from "./fetch-errors";
import type { Settings } from "./options";

/** Runs `work` under one deadline (all redirects and the body) and the caller's cancel signal, in our own error words. */
export async function withDeadline<T>(
  settings: Settings,
  url: string,
  options: FetchOptions,
  passThrough: (error: unknown) => boolean,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const shown = displayUrl(url);
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    const seconds = settings.timeoutMs / 1000;
    deadline.abort(new ImportError(`Could not fetch ${shown}: timed out after ${seconds} s`, { permanent: false, reason: `timeout after ${seconds} s` }));
  }, settings.timeoutMs);
  const cancel = () =>
    deadline.abort(
      new ImportError(`Could not fetch ${shown}: the import was cancelled`, {
        permanent: false,
        cause: options.signal?.reason,
      }),
    );
  if (options.signal?.aborted) cancel();
  else options.signal?.addEventListener("abort", cancel, { once: true });
  try {
    return await work(deadline.signal);
  } catch (error) {
    if (error instanceof ImportError || passThrough(error)) throw error;
    // Destroying a socket surfaces as a generic error; the abort reason says what really happened.
    if (deadline.signal.aborted) throw deadline.signal.reason;
    throw connectionFailure(shown, error);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", cancel);
  }
}
