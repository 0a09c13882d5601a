/**
 * Why an import could not produce a note. `permanent` failures (blocked address, deleted page,
 * captcha, nothing to extract) fail the task at once; transient ones (timeouts, 5xx, 429) are
 * retried by the job queue with backoff before the task is failed.
 * `message` is shown to the user as the task's `error`: it must say what happened and what to do,
 * and never carry upstream internals.
 */
export class ImportError extends Error {
  readonly permanent: boolean;

  constructor(message: string, options: { permanent: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = "ImportError";
    this.permanent = options.permanent;
  }
}

/** The hint every "we could not read this page" error ends with. */
export const PASTE_INSTEAD =
  "Open the page in your browser and paste its text, or save the page and paste its HTML source, as `content` instead.";
