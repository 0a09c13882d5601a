import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError, type ClientOptions } from "openai";
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import { stripThinking } from "../answer-text";
import { truncateText } from "../chunk-text";
import { estimateTextTokens, OPENAI_COMPATIBLE_TOKENS } from "../estimate-tokens";
import { LlmRequestError } from "../request-error";
import type { LlmUsage } from "../usage";
import { abortableSleep } from "../../../abortable-sleep";
import type { OpenAiSettings } from "./openai-settings";

const DEFAULT_MAX_RETRIES = 4;
// A server asking for a longer pause than this is waited for this long, then asked again.
const MAX_RETRY_WAIT_MS = 60_000;

export type { OpenAiSettings } from "./openai-settings";
export type ChatRequest = Omit<ChatCompletionCreateParamsNonStreaming, "model"> & Record<string, unknown>;

export interface CompleteOptions {
  signal?: AbortSignal;
  /** An error answer that is a refusal of the request's form, answered by changing the request rather than by retrying it. */
  isRefusal?: (status: number, message: string) => boolean;
}

/** The server said no; `serverMessage` is its own text (for matching known refusals), `message` one line for a user. */
export class OpenAiRequestError extends LlmRequestError {
  override name = "OpenAiRequestError";
  readonly serverMessage: string;

  constructor(message: string, options: { status?: number; stopsBuild: boolean; serverMessage?: string; cause?: unknown }) {
    super(message, options);
    this.serverMessage = options.serverMessage ?? "";
  }
}

export interface ChatAnswer {
  /** The answer's text, reasoning blocks removed. */
  text: string;
  usage: LlmUsage;
}

export interface OpenAiClient {
  readonly settings: OpenAiSettings;
  /**
   * One Chat Completions request (the model filled in, the server's quirks applied), retried on
   * 429, 5xx and connection failures with backoff honouring Retry-After. Throws OpenAiRequestError.
   */
  complete(body: ChatRequest, options?: CompleteOptions): Promise<ChatCompletion>;
  /** A plain prompt in, text out, with what it cost: for callers that want prose, not a schema. */
  chat(input: { system?: string; prompt: string; maxTokens?: number; temperature?: number; signal?: AbortSignal }): Promise<ChatAnswer>;
}

export function createOpenAiClient(settings: OpenAiSettings): OpenAiClient {
  const key = settings.apiKey ?? "";
  const client = new OpenAI({
    apiKey: key === "" ? "none" : key,
    // Local servers (Ollama, vLLM, llama.cpp, LM Studio) need no key: send no Authorization header at all.
    ...(key === "" ? { defaultHeaders: { Authorization: null } } : {}),
    baseURL: settings.baseURL,
    timeout: settings.timeoutMs,
    maxRetries: 0,
    fetch: fetchWithOpenAiErrors,
    // Bun's fetch gives up after 300 s without a byte whatever the signal says; a slow local model may need longer.
    fetchOptions: { timeout: false } as NonNullable<ClientOptions["fetchOptions"]>,
  });
  const maxRetries = settings.maxRetries ?? DEFAULT_MAX_RETRIES;
  const extras = serverQuirks(settings.baseURL);

  async function complete(body: ChatRequest, options: CompleteOptions = {}): Promise<ChatCompletion> {
    const request = { ...extras, ...outputLimit(body), model: settings.model, stream: false } as ChatCompletionCreateParamsNonStreaming;
    for (let attempt = 0; ; attempt++) {
      try {
        return await client.chat.completions.create(request, options.signal ? { signal: options.signal } : undefined);
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason ?? error;
        const status = error instanceof APIError ? error.status : undefined;
        const refused = status !== undefined && (options.isRefusal?.(status, serverMessage(error as APIError)) ?? false);
        if (attempt < maxRetries && !refused && isTransient(error)) {
          await abortableSleep(retryDelayMs(error, attempt), options.signal);
          continue;
        }
        throw toOpenAiRequestError(error, settings);
      }
    }
  }

  async function chat(input: { system?: string; prompt: string; maxTokens?: number; temperature?: number; signal?: AbortSignal }): Promise<ChatAnswer> {
    const body: ChatRequest = {
      messages: [...(input.system ? [{ role: "system" as const, content: input.system }] : []), { role: "user" as const, content: input.prompt }],
      ...(input.maxTokens ? { max_tokens: input.maxTokens } : {}),
      ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
    };
    const completion = await complete(body, { signal: input.signal });
    const raw = completion.choices[0]?.message?.content ?? "";
    return { text: stripThinking(raw), usage: completionUsage(completion, body, raw) };
  }

  // OpenAI's own reasoning models refuse `max_tokens`; every other server knows it, not always its successor.
  const openAiItself = hostOf(settings.baseURL) === "api.openai.com";
  function outputLimit(body: ChatRequest): ChatRequest {
    if (!openAiItself || body.max_tokens === undefined) return body;
    const { max_tokens, ...rest } = body;
    return { ...rest, max_completion_tokens: max_tokens };
  }

  return { settings, complete, chat };
}

/**
 * Servers that answer errors outside OpenAI's `{error: …}` envelope (vLLM's `{object: "error",
 * message}`, DashScope's `{code, message}`, a proxy's plain text) get it put around their message, so
 * the SDK keeps the server's words for matching refusals and for the user.
 */
async function fetchWithOpenAiErrors(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.ok) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const record = body && typeof body === "object" ? (body as Record<string, unknown>) : undefined;
  if (record && "error" in record) return new Response(text, response);
  const message = typeof record?.message === "string" ? record.message : text.trim().slice(0, 1000);
  const headers = new Headers(response.headers);
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  return new Response(JSON.stringify({ error: { message, type: record?.type ?? null, code: record?.code ?? null } }), {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/**
 * What a completion cost: the server's `usage` when it sent one, else an estimate from the request
 * and the answer's text, marked as estimated.
 */
export function completionUsage(completion: ChatCompletion, request: unknown, answerText: string): LlmUsage {
  const usage = completion.usage;
  if (usage && Number.isFinite(usage.prompt_tokens) && Number.isFinite(usage.completion_tokens)) {
    return { llm_calls: 1, input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens };
  }
  return {
    llm_calls: 1,
    input_tokens: estimateTextTokens(JSON.stringify(request), OPENAI_COMPATIBLE_TOKENS),
    output_tokens: estimateTextTokens(answerText, OPENAI_COMPATIBLE_TOKENS),
    estimated: true,
  };
}

/**
 * Body fields some servers need to answer a forced tool call or a non-streaming request: DeepSeek
 * refuses a named tool_choice while thinking is on (its default), and DashScope's open-weight Qwen3
 * refuses non-streaming calls with thinking on. Other servers get nothing extra (unknown fields may be refused).
 */
export function serverQuirks(baseURL: string): Record<string, unknown> {
  const host = hostOf(baseURL);
  if (host === "api.deepseek.com" || host.endsWith(".deepseek.com")) return { thinking: { type: "disabled" } };
  if (host.startsWith("dashscope") && host.endsWith(".aliyuncs.com")) return { enable_thinking: false };
  return {};
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return "";
  }
}

/** The server's own words: OpenAI's `{error: {message}}`, Ollama's and LM Studio's `{error: "…"}`, or the raw body. */
export function serverMessage(error: APIError): string {
  const body = error.error as unknown;
  if (typeof body === "string") return body;
  if (body && typeof body === "object" && typeof (body as { message?: unknown }).message === "string") return (body as { message: string }).message;
  return error.message.replace(/^\d{3}\s+/, "");
}

function isTransient(error: unknown): boolean {
  if (error instanceof APIConnectionTimeoutError || error instanceof APIUserAbortError) return false;
  if (!(error instanceof APIError)) return false;
  // No status: the connection failed before an answer.
  return error.status === undefined || error.status === 408 || error.status === 429 || error.status >= 500;
}

/** Retry-After (seconds or an HTTP date) or retry-after-ms when the server sent one, else exponential backoff with jitter. */
function retryDelayMs(error: unknown, attempt: number): number {
  const headers = error instanceof APIError ? error.headers : undefined;
  const ms = Number(headers?.get("retry-after-ms"));
  if (headers?.get("retry-after-ms") && Number.isFinite(ms) && ms >= 0) return Math.min(ms, MAX_RETRY_WAIT_MS);
  const after = headers?.get("retry-after");
  if (after) {
    const seconds = Number(after);
    const wait = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - Date.now();
    if (Number.isFinite(wait)) return Math.min(Math.max(0, wait), MAX_RETRY_WAIT_MS);
  }
  return Math.min(500 * 2 ** attempt, 8_000) * (0.75 + Math.random() * 0.5);
}

// What to check when the server says the setup itself is wrong.
const SETTING_HINTS: Record<number, string> = {
  401: "check OPENAI_API_KEY",
  403: "check OPENAI_API_KEY: the key is not allowed to use this model",
  404: "check OPENAI_MODEL and OPENAI_BASE_URL",
};

/** One line a user can act on, naming the setting to check; never the raw response body beyond the server's message. */
export function toOpenAiRequestError(error: unknown, settings: Pick<OpenAiSettings, "baseURL" | "timeoutMs">): OpenAiRequestError {
  const where = `the server at OPENAI_BASE_URL (${settings.baseURL})`;
  if (error instanceof APIConnectionTimeoutError) {
    const seconds = Math.round(settings.timeoutMs / 100) / 10;
    return new OpenAiRequestError(
      `${where} did not answer within ${seconds} s (OPENAI_TIMEOUT_MS); a slow local model may need a longer timeout`,
      { stopsBuild: false, cause: error },
    );
  }
  if (error instanceof APIError && error.status !== undefined) {
    const status = error.status;
    const said = serverMessage(error);
    const detail = said ? `: ${truncateText(said.replace(/\s+/g, " ").trim(), 200)}` : "";
    const hint = SETTING_HINTS[status];
    const verb = status === 429 || status >= 500 ? "kept failing" : "rejected the request";
    return new OpenAiRequestError(`${where} ${verb} (${status})${detail}${hint ? ` (${hint})` : ""}`, {
      status,
      stopsBuild: hint !== undefined,
      serverMessage: said,
      cause: error,
    });
  }
  const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
  return new OpenAiRequestError(`could not reach ${where}: ${reason}`, { stopsBuild: false, cause: error });
}
