import Anthropic, { APIConnectionTimeoutError, APIError } from "@anthropic-ai/sdk";
import { LlmRequestError } from "../request-error";
import type { LlmUsage } from "../usage";
import { truncateText } from "../chunk-text";

export interface AnthropicClientSettings {
  apiKey: string;
  baseURL?: string;
  /** Retries of 429/5xx/529 and connection errors, done by the SDK with its own backoff. */
  maxRetries: number;
  /** Per request (each attempt). */
  timeoutMs: number;
}

// The API version every Messages-compatible server documents; the SDK's own newer date is Anthropic's alone.
const COMPATIBLE_API_VERSION = "2023-06-01";

/** The Messages API client; any base URL that serves Anthropic's format (DeepSeek, Kimi, DashScope, Ollama) works alike. */
export function createAnthropicClient(settings: AnthropicClientSettings): Anthropic {
  const elsewhere = settings.baseURL !== undefined && !isAnthropicHost(settings.baseURL);
  return new Anthropic({
    apiKey: settings.apiKey,
    ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
    ...(elsewhere ? { defaultHeaders: { "anthropic-version": COMPATIBLE_API_VERSION } } : {}),
    maxRetries: settings.maxRetries,
    timeout: settings.timeoutMs,
  });
}

function isAnthropicHost(url: string): boolean {
  try {
    const host = new URL(url).hostname.toLowerCase();
    return host === "anthropic.com" || host.endsWith(".anthropic.com");
  } catch {
    return false;
  }
}

/** The Messages API refused or failed a request after the SDK's own retries. */
export class AnthropicRequestError extends LlmRequestError {
  override name = "AnthropicRequestError";
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
export function toAnthropicRequestError(error: unknown, usage: LlmUsage): AnthropicRequestError {
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
