import { z } from "zod";
import { abortableSleep } from "../../../abortable-sleep";
import { truncateText } from "../chunk-text";
import { estimateTextTokens, OPENAI_COMPATIBLE_TOKENS } from "../estimate-tokens";
import { LlmRequestError } from "../request-error";

/** What EMBEDDINGS_* configure: any server that speaks OpenAI's `POST /embeddings`. */
export interface EmbeddingsSettings {
  baseURL: string;
  /** Empty or absent for a local server that wants none: no Authorization header is sent. */
  apiKey?: string;
  model: string;
  /** EMBEDDINGS_DIMENSIONS: sent only when set (servers that cannot shorten vectors refuse the field). */
  dimensions?: number;
  /** EMBEDDINGS_BATCH: inputs per request at most (DashScope takes 10, SiliconFlow 64). */
  batchSize: number;
  /** One attempt's time limit. */
  timeoutMs?: number;
  /** Retries of 429, 5xx and connection failures. */
  maxRetries?: number;
  /** Put before each search query and each stored text (EMBEDDINGS_QUERY_PREFIX / _DOCUMENT_PREFIX; see `taskPrefixes`). */
  queryPrefix?: string;
  documentPrefix?: string;
}

/**
 * The prefixes a model was trained to see before a query and before a document, where its makers
 * say retrieval needs them: nomic-embed-text ("search_query: ", "search_document: ") and the E5
 * family ("query: ", "passage: "). Models that take an instruction in the request instead, or none
 * (bge-m3, OpenAI's, Qwen's text-embedding-v*), get none. The configured ones, even empty, win.
 */
export function taskPrefixes(model: string): { queryPrefix: string; documentPrefix: string } {
  const name = model.toLowerCase();
  if (name.includes("nomic-embed-text")) return { queryPrefix: "search_query: ", documentPrefix: "search_document: " };
  if (/(^|[/:_-])(multilingual-)?e5-/.test(name)) return { queryPrefix: "query: ", documentPrefix: "passage: " };
  return { queryPrefix: "", documentPrefix: "" };
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 4;
const MAX_RETRY_WAIT_MS = 60_000;
// Most servers cap an input at 8,192 tokens and a request far lower than OpenAI's 300,000; these keep under both.
const MAX_INPUT_TOKENS = 8_000;
const MAX_REQUEST_TOKENS = 32_000;
// Local servers queue concurrent requests; hosted ones rate-limit them (429, retried): a few is safe for both.
const REQUESTS_IN_FLIGHT = 3;

/** The server refused or failed after the retries; `stopsBuild` when the setup itself is wrong (key, model, URL, dimensions). */
export class EmbeddingsRequestError extends LlmRequestError {
  override name = "EmbeddingsRequestError";
}

export interface EmbeddingsAnswer {
  vectors: Float32Array[];
  /** Requests answered and the input tokens they report (estimated when a server leaves `usage` out). */
  requests: number;
  inputTokens: number;
}

export interface EmbedOptions {
  signal?: AbortSignal;
  /** Overrides the settings' retries (a search query is not retried: it falls back to words at once). */
  maxRetries?: number;
  /** A search query, or (the default) a text to store: each gets its prefix from the settings. */
  purpose?: "query" | "document";
}

export interface EmbeddingsClient {
  readonly settings: EmbeddingsSettings;
  /** Vectors for `texts`, in order, each checked to have the same length (EMBEDDINGS_DIMENSIONS when set). */
  embed(texts: string[], options?: EmbedOptions): Promise<EmbeddingsAnswer>;
}

const answerSchema = z.object({
  data: z.array(z.object({ index: z.number().int().min(0).optional(), embedding: z.union([z.array(z.number()), z.string()]) })),
  usage: z.object({ prompt_tokens: z.number().optional(), total_tokens: z.number().optional() }).nullish(),
});

export function createEmbeddingsClient(settings: EmbeddingsSettings): EmbeddingsClient {
  const url = `${settings.baseURL.replace(/\/+$/, "")}/embeddings`;
  const where = `the embeddings server at EMBEDDINGS_BASE_URL (${settings.baseURL})`;
  // A server that refused a batch as too large is asked with smaller ones from then on.
  let batchSize = settings.batchSize;

  async function request(texts: string[], options: EmbedOptions): Promise<{ vectors: Float32Array[]; tokens: number }> {
    const maxRetries = options.maxRetries ?? settings.maxRetries ?? DEFAULT_MAX_RETRIES;
    const body = JSON.stringify({
      model: settings.model,
      input: texts,
      encoding_format: "float",
      ...(settings.dimensions !== undefined ? { dimensions: settings.dimensions } : {}),
    });
    for (let attempt = 0; ; attempt++) {
      const timeout = AbortSignal.timeout(settings.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
      let response: Response;
      try {
        response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) },
          body,
          signal,
        });
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason ?? error;
        if (timeout.aborted) {
          throw new EmbeddingsRequestError(`${where} did not answer within ${Math.round((settings.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000)} s`, { stopsBuild: false, cause: error });
        }
        if (attempt < maxRetries) {
          await abortableSleep(backoffMs(attempt), options.signal);
          continue;
        }
        throw new EmbeddingsRequestError(`could not reach ${where}: ${(error as Error).message}`, { stopsBuild: false, cause: error });
      }
      if (response.ok) return { vectors: await readVectors(response, texts.length), tokens: 0 };
      const said = await serverWords(response);
      if ((response.status === 429 || response.status === 408 || response.status >= 500) && attempt < maxRetries) {
        await abortableSleep(retryAfterMs(response.headers) ?? backoffMs(attempt), options.signal);
        continue;
      }
      if (texts.length > 1 && refusesBatchSize(response.status, said)) throw new BatchTooLarge();
      throw refusal(response.status, said);
    }
  }

  async function readVectors(response: Response, count: number): Promise<Float32Array[]> {
    let json: unknown;
    try {
      json = await response.json();
    } catch (error) {
      throw new EmbeddingsRequestError(`${where} answered with something that is not JSON`, { stopsBuild: false, cause: error });
    }
    const parsed = answerSchema.safeParse(json);
    if (!parsed.success || parsed.data.data.length !== count) {
      throw new EmbeddingsRequestError(`${where} answered without ${count} embeddings in \`data\` (is it an embeddings server?)`, { stopsBuild: true });
    }
    const rows = [...parsed.data.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return rows.map((row) => {
      const vector = typeof row.embedding === "string" ? fromBase64(row.embedding) : Float32Array.from(row.embedding);
      if (vector.length === 0 || !vector.every(Number.isFinite)) {
        throw new EmbeddingsRequestError(`${where} answered an empty or broken vector`, { stopsBuild: false });
      }
      return vector;
    });
  }

  function refusal(status: number, said: string): EmbeddingsRequestError {
    const hint = SETTING_HINTS[status];
    const detail = said ? `: ${truncateText(said.replace(/\s+/g, " ").trim(), 200)}` : "";
    const verb = status === 429 || status >= 500 ? "kept failing" : "rejected the request";
    return new EmbeddingsRequestError(`${where} ${verb} (${status})${detail}${hint ? ` (${hint})` : ""}`, { status, stopsBuild: hint !== undefined });
  }

  /** One batch's vectors; a batch the server refuses as too large is split in halves (and later batches made smaller). */
  async function embedBatch(batch: string[], options: EmbedOptions): Promise<Float32Array[]> {
    try {
      return (await request(batch, options)).vectors;
    } catch (error) {
      if (!(error instanceof BatchTooLarge)) throw error;
      const half = Math.max(1, Math.floor(batch.length / 2));
      batchSize = Math.min(batchSize, half);
      const first = await embedBatch(batch.slice(0, half), options);
      return [...first, ...(await embedBatch(batch.slice(half), options))];
    }
  }

  async function embed(texts: string[], options: EmbedOptions = {}): Promise<EmbeddingsAnswer> {
    const prefix = (options.purpose === "query" ? settings.queryPrefix : settings.documentPrefix) ?? "";
    const inputs = texts.map((text) => clampInput(prefix + text));
    const batches: string[][] = [];
    for (let next = 0; next < inputs.length; ) {
      const batch = takeBatch(inputs, next, batchSize);
      batches.push(batch);
      next += batch.length;
    }
    // A few requests in flight: the server works on the next batch while the answer of one travels
    // (and while the caller writes the previous round's vectors).
    const results: Float32Array[][] = new Array(batches.length);
    let taken = 0;
    const worker = async () => {
      while (taken < batches.length) {
        const index = taken++;
        results[index] = await embedBatch(batches[index]!, options);
      }
    };
    await Promise.all(Array.from({ length: Math.min(REQUESTS_IN_FLIGHT, batches.length) }, worker));
    const vectors = results.flat();
    const length = settings.dimensions ?? vectors[0]?.length;
    const wrong = vectors.find((vector) => vector.length !== length);
    if (wrong) {
      throw new EmbeddingsRequestError(
        `${where} answered ${wrong.length}-dimension vectors where ${length} were expected${settings.dimensions ? " (check EMBEDDINGS_DIMENSIONS: the model may not shorten its vectors)" : ""}`,
        { stopsBuild: true },
      );
    }
    const inputTokens = inputs.reduce((sum, text) => sum + estimateTextTokens(text, OPENAI_COMPATIBLE_TOKENS), 0);
    return { vectors, requests: batches.length, inputTokens };
  }

  return { settings, embed };
}

/** One request's inputs from `from`: at most `size`, and under MAX_REQUEST_TOKENS (always at least one). */
function takeBatch(inputs: string[], from: number, size: number): string[] {
  const batch: string[] = [];
  let tokens = 0;
  for (let index = from; index < inputs.length && batch.length < size; index++) {
    const cost = estimateTextTokens(inputs[index]!, OPENAI_COMPATIBLE_TOKENS);
    if (batch.length > 0 && tokens + cost > MAX_REQUEST_TOKENS) break;
    batch.push(inputs[index]!);
    tokens += cost;
  }
  return batch;
}

/** An input the server would refuse as too long is cut (a passage is far shorter; a title with many tags may not be). */
function clampInput(text: string): string {
  const cleaned = text.trim() === "" ? " " : text;
  if (estimateTextTokens(cleaned, OPENAI_COMPATIBLE_TOKENS) <= MAX_INPUT_TOKENS) return cleaned;
  return truncateText(cleaned, MAX_INPUT_TOKENS);
}

class BatchTooLarge extends Error {}

/** 413, or a 400 saying the batch has too many inputs (DashScope: "batch size is invalid, it should not be larger than 10"). */
function refusesBatchSize(status: number, said: string): boolean {
  return status === 413 || (status === 400 && /batch|too many|larger than|maximum.*(input|item)|at most \d+/i.test(said));
}

/** The server's own words: OpenAI's `{error: {message}}`, Ollama's `{error: "…"}`, DashScope's `{message}`, or the body. */
async function serverWords(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const error = body.error;
    if (typeof error === "string") return error;
    if (error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string") return (error as { message: string }).message;
    if (typeof body.message === "string") return body.message;
  } catch {
    // not JSON: the text itself
  }
  return text.trim().slice(0, 1000);
}

/** Little-endian float32s, as OpenAI sends `encoding_format: "base64"` (and some servers send unasked). */
export function fromBase64(text: string): Float32Array {
  const bytes = Buffer.from(text, "base64");
  const vector = new Float32Array(Math.floor(bytes.length / 4));
  for (let index = 0; index < vector.length; index++) vector[index] = bytes.readFloatLE(index * 4);
  return vector;
}

function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.get("retry-after-ms") && Number.isFinite(ms) && ms >= 0) return Math.min(ms, MAX_RETRY_WAIT_MS);
  const after = headers.get("retry-after");
  if (!after) return undefined;
  const seconds = Number(after);
  const wait = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - Date.now();
  return Number.isFinite(wait) ? Math.min(Math.max(0, wait), MAX_RETRY_WAIT_MS) : undefined;
}

function backoffMs(attempt: number): number {
  return Math.min(500 * 2 ** attempt, 8_000) * (0.75 + Math.random() * 0.5);
}

// What to check when the server says the setup itself is wrong.
const SETTING_HINTS: Record<number, string> = {
  401: "check EMBEDDINGS_API_KEY",
  403: "check EMBEDDINGS_API_KEY: the key is not allowed to use this model",
  404: "check EMBEDDINGS_MODEL and EMBEDDINGS_BASE_URL",
};
