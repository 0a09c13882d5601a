/**
 * Why a transcript could not be made, in words for the note and the task's `failures`. Permanent
 * ones (refused, over a limit, unreadable media) end the transcription; others are retried by the
 * queue, and become permanent on its last attempt.
 */
export class TranscriptError extends Error {
  override name = "TranscriptError";
  readonly permanent: boolean;
  constructor(message: string, options: { permanent?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.permanent = options.permanent ?? true;
  }
}
