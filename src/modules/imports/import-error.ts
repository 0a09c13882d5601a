/**
 * Why an import could not produce a note. `permanent` failures (blocked address, deleted page,
 * captcha, nothing to extract) fail the task at once; transient ones (timeouts, 5xx, 429) are
 * retried by the job queue with backoff before the task is failed.
 * `message` is shown to the user as the task's `error`: it must say what happened and what to do,
 * and never carry upstream internals.
 */
export class ImportError extends Error {
  readonly permanent: boolean;
  /** The cause in a few words, without the URL (`timeout after 10 s`, `blocked address 127.0.0.1`), for records that name the URL elsewhere. */
  readonly reason?: string;

  constructor(message: string, options: { permanent: boolean; cause?: unknown; reason?: string }) {
    super(message, { cause: options.cause });
    this.name = "ImportError";
    this.permanent = options.permanent;
    this.reason = options.reason;
  }
}

/** The hint every "we could not read this page" error ends with. */
export const PASTE_INSTEAD =
  "Open the page in your browser and paste its text, or save the page and paste its HTML source, as `content` instead.";

/** Who answered and what was asked for, as the user reads them: `{ site: "WeChat", item: "article" }`. */
export interface HttpSubject {
  /** Starts a sentence: "WeChat", "The site", "Bilibili's short-link service". */
  site: string;
  item: string;
}

/**
 * What an HTTP status means for an import, for every platform alike; null for 2xx (read the body).
 * 429 and 5xx are transient (the job queue retries them); anything else is permanent.
 */
export function httpStatusError(status: number, { site, item }: HttpSubject): ImportError | null {
  if (status >= 200 && status < 300) return null;
  const retried = "the import will be retried. Try again in a few minutes if it keeps failing.";
  if (status === 429) {
    return new ImportError(`${site} is limiting how fast it can be read (HTTP 429); ${retried}`, { permanent: false });
  }
  if (status >= 500) {
    return new ImportError(`${site} failed to serve this ${item} (HTTP ${status}); ${retried}`, { permanent: false });
  }
  if (status === 404 || status === 410) {
    return new ImportError(
      `${site} says this ${item} is not found (HTTP ${status}): it was deleted, or the link is wrong. Check the link.`,
      { permanent: true },
    );
  }
  if (status === 401 || status === 403) {
    return new ImportError(`${site} needs a login for this ${item}, or refused access (HTTP ${status}). ${PASTE_INSTEAD}`, {
      permanent: true,
    });
  }
  return new ImportError(`${site} refused to serve this ${item} (HTTP ${status}). ${PASTE_INSTEAD}`, { permanent: true });
}
