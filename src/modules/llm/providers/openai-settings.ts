// Apart from the provider, so the configuration reads these without loading the OpenAI SDK (about 8 MiB a process that never calls it).
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";
export const OPENAI_DEFAULT_CONTEXT_TOKENS = 8192;
export const OPENAI_DEFAULT_TIMEOUT_MS = 120_000;

/** What OPENAI_* configure: any server that speaks OpenAI's Chat Completions API. */
export interface OpenAiSettings {
  baseURL: string;
  /** Empty or absent for a local server that wants none: no Authorization header is sent. */
  apiKey?: string;
  model: string;
  /** OPENAI_TIMEOUT_MS: how long one answer may take (each attempt). */
  timeoutMs: number;
  /** OPENAI_CONTEXT_TOKENS: the bound on one request, its answer included. */
  contextTokens: number;
  /** Retries of 429, 5xx and connection failures. */
  maxRetries?: number;
}
