import { APIConnectionTimeoutError, APIError } from "@anthropic-ai/sdk";
import type { ExtractionUsage } from "../../extraction";
import { truncateText } from "./chunk";

/**
 * The model answered, twice, with something that is not a valid knowledge graph. The build records
 * the note as failed and goes on; `usage` counts every call spent on the note, the retry included.
 */
export class ExtractionFailedError extends Error {
  override name = "ExtractionFailedError";
  readonly noteId: number;
  readonly usage: ExtractionUsage;

  constructor(message: string, options: { noteId: number; usage: ExtractionUsage }) {
    super(message);
    this.noteId = options.noteId;
    this.usage = { ...options.usage };
  }
}

/**
 * The Messages API refused or failed a request after the SDK's own retries. `stopsBuild` when the
 * key or the model is wrong (401, 403, 404): every note would fail alike. Anything else (a 400
 * about this note's request, overloaded, rate-limited, timed out, unreachable) is one note's failure.
 */
export class AnthropicRequestError extends Error {
  override name = "AnthropicRequestError";
  readonly status: number | undefined;
  readonly stopsBuild: boolean;
  readonly usage: ExtractionUsage;

  constructor(message: string, options: { status?: number; stopsBuild: boolean; usage: ExtractionUsage; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.status = options.status;
    this.stopsBuild = options.stopsBuild;
    this.usage = { ...options.usage };
  }
}

// Statuses the SDK retries itself; seeing one here means its retries ran out.
const TRANSIENT_STATUSES = new Set([408, 409, 429]);
// What to check when the API says the setup itself is wrong.
const SETTING_HINTS: Record<number, string> = {
  401: " (check ANTHROPIC_API_KEY)",
  403: " (check ANTHROPIC_API_KEY: the key is not allowed to use this API or model)",
  404: " (check ANTHROPIC_MODEL and ANTHROPIC_BASE_URL)",
};

/** Maps an SDK error to one line a user can act on, without the raw response body. */
export function toRequestError(error: unknown, usage: ExtractionUsage): AnthropicRequestError {
  if (error instanceof APIConnectionTimeoutError) {
    return new AnthropicRequestError("the Anthropic API did not answer in time", { stopsBuild: false, usage, cause: error });
  }
  if (error instanceof APIError && error.status !== undefined) {
    const status = error.status;
    const type = error.type ? ` ${error.type}` : "";
    const detail = error.apiMessage ? `: ${truncateText(error.apiMessage, 200)}` : "";
    const hint = SETTING_HINTS[status] ?? "";
    const verb = status < 500 && !TRANSIENT_STATUSES.has(status) ? "rejected the request" : "kept failing";
    return new AnthropicRequestError(`the Anthropic API ${verb} (${status}${type})${detail}${hint}`, {
      status,
      stopsBuild: hint !== "",
      usage,
      cause: error,
    });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new AnthropicRequestError(`could not reach the Anthropic API: ${reason}`, { stopsBuild: false, usage, cause: error });
}
