import { abortableSleep } from "../../abortable-sleep";
import { AnswerTooLargeError, readAnswerText } from "./read-answer";

/** What STT_* configure: any server that speaks OpenAI's `POST /audio/transcriptions`. */
export interface SttSettings {
  baseURL: string;
  /** Empty or absent for a local server that wants none: no Authorization header is sent. */
  apiKey?: string;
  model: string;
  /** ISO-639-1; sent on every request when set. */
  language?: string;
  /** How long one request may take. */
  timeoutMs?: number;
}

/** One stretch of speech, in seconds from the start of the uploaded file. */
export interface SpeechSegment {
  start: number;
  end: number;
  text: string;
}

export interface SpeechTranscript {
  /** Null when the server answered only plain text (the `json` fallback): the text is untimed. */
  segments: SpeechSegment[] | null;
  text: string;
  /** The language the server heard, when it says. */
  language?: string;
  /** Requests this piece took, retries and the fallback included. */
  requests: number;
}

/** The server refused or failed after the retries; `setup` when the configuration itself is wrong. */
export class SttRequestError extends Error {
  override name = "SttRequestError";
  readonly status: number | undefined;
  /** Every later request would fail alike (key, model, address). */
  readonly setup: boolean;
  /** Worth trying again later (a server down or overloaded), not a refusal of this piece. */
  readonly transient: boolean;
  requests = 0;
  constructor(message: string, options: { status?: number; setup?: boolean; transient?: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.status = options.status;
    this.setup = options.setup ?? false;
    this.transient = options.transient ?? false;
  }
}

/** At most this many tries a piece, over about a minute (CONTRACT "Transcripts"). */
const MAX_TRIES = 4;
const BACKOFF_MS = [2_000, 6_000, 15_000];
const MAX_RETRY_WAIT_MS = 30_000;
const DEFAULT_TIMEOUT_MS = 600_000;
/** A 10-minute piece's verbose_json is ~100 KiB; an answer past this is refused as it streams, not read whole. */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** Of an error answer, only the start is read (its message is cut to 200 characters anyway). */
const MAX_ERROR_BYTES = 64 * 1024;
/** A server that refused verbose_json is asked again after this, so one upgraded since gets timestamps again. */
export const VERBOSE_RETRY_MS = 60 * 60_000;

export interface SttClient {
  readonly settings: SttSettings;
  /** Transcribes one audio file (an M4A piece): multipart upload, `verbose_json` with segments, `json` when refused. */
  transcribe(input: { file: string; name: string; type?: string; signal?: AbortSignal; /** The piece's length, to tell the unit of its times. */ seconds?: number }): Promise<SpeechTranscript>;
}

export function createSttClient(settings: SttSettings, options: { sleep?: (ms: number, signal?: AbortSignal) => Promise<void>; now?: () => number } = {}): SttClient {
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? Date.now;
  const endpoint = `${settings.baseURL.replace(/\/+$/, "")}/audio/transcriptions`;
  // A server that refused verbose_json is asked for json for the next hour, then for verbose_json again.
  let verboseRefusedAt: number | null = null;

  async function send(file: string, name: string, type: string, format: "verbose_json" | "json", signal?: AbortSignal): Promise<Response> {
    const form = new FormData();
    // Bun.file streams the piece from disk: it is never read whole into memory here.
    form.append("file", Bun.file(file, { type }), name);
    form.append("model", settings.model);
    form.append("response_format", format);
    if (format === "verbose_json") form.append("timestamp_granularities[]", "segment");
    if (settings.language) form.append("language", settings.language);
    const headers: Record<string, string> = { Accept: "application/json" };
    if (settings.apiKey) headers.Authorization = `Bearer ${settings.apiKey}`;
    const timeout = AbortSignal.timeout(settings.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    return fetch(endpoint, { method: "POST", body: form, headers, signal: signal ? AbortSignal.any([signal, timeout]) : timeout, timeout: false } as RequestInit);
  }

  return {
    settings,
    async transcribe({ file, name, type = "audio/mp4", signal, seconds }) {
      let requests = 0;
      let format: "verbose_json" | "json" = verboseRefusedAt !== null && now() - verboseRefusedAt < VERBOSE_RETRY_MS ? "json" : "verbose_json";
      let failures = 0;
      for (;;) {
        let response: Response;
        try {
          requests++;
          response = await send(file, name, type, format, signal);
        } catch (error) {
          if (signal?.aborted) throw error;
          failures++;
          const failure = new SttRequestError(`the speech-to-text server could not be reached (${describe(error)})`, { transient: true, cause: error });
          if (failures >= MAX_TRIES) throw withRequests(failure, requests);
          await sleep(BACKOFF_MS[failures - 1] ?? 15_000, signal);
          continue;
        }
        if (response.ok) {
          let body: string;
          try {
            body = await readAnswerText(response, MAX_ANSWER_BYTES);
          } catch (error) {
            if (!(error instanceof AnswerTooLargeError)) throw error;
            throw withRequests(new SttRequestError(`the speech-to-text server's answer is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`, { cause: error }), requests);
          }
          return { ...readTranscript(body, format, seconds), requests };
        }
        const message = await errorMessage(response);
        if (format === "verbose_json" && refusesFormat(response.status, message)) {
          verboseRefusedAt = now();
          format = "json";
          continue;
        }
        if (response.status === 429 || response.status >= 500) {
          failures++;
          const failure = new SttRequestError(`the speech-to-text server answered ${response.status}${message ? `: ${message}` : ""}`, { status: response.status, transient: true });
          if (failures >= MAX_TRIES) throw withRequests(failure, requests);
          await sleep(retryDelay(response.headers.get("retry-after"), failures), signal);
          continue;
        }
        throw withRequests(refusal(response.status, message, settings), requests);
      }
    },
  };
}

function withRequests(error: SttRequestError, requests: number): SttRequestError {
  error.requests = requests;
  return error;
}

function refusal(status: number, message: string, settings: SttSettings): SttRequestError {
  const said = message ? `: ${message}` : "";
  if (status === 401 || status === 403) return new SttRequestError(`the speech-to-text server refused the key (${status}${said}); check STT_API_KEY`, { status, setup: true });
  if (status === 404) return new SttRequestError(`the speech-to-text server has no ${settings.model} model or no /audio/transcriptions (404${said}); check STT_BASE_URL and STT_MODEL`, { status, setup: true });
  if (status === 413) return new SttRequestError(`the speech-to-text server refused a piece as too large (413${said}); lower STT_MAX_UPLOAD_MB`, { status });
  return new SttRequestError(`the speech-to-text server refused the recording (${status}${said})`, { status });
}

/** A 400/422 that names the response format: the server does not do verbose_json (e.g. some whisper.cpp builds). */
function refusesFormat(status: number, message: string): boolean {
  return (status === 400 || status === 422) && /response_format|verbose_json|timestamp_granularities|not supported|unsupported/i.test(message);
}

/** Retry-After in seconds or as an HTTP date, bounded; else the backoff. */
export function retryDelay(header: string | null, failures: number): number {
  const fallback = BACKOFF_MS[failures - 1] ?? 15_000;
  if (!header) return fallback;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  if (!Number.isFinite(ms)) return fallback;
  return Math.min(MAX_RETRY_WAIT_MS, Math.max(0, ms));
}

async function errorMessage(response: Response): Promise<string> {
  const text = await readAnswerText(response, MAX_ERROR_BYTES).catch(() => "");
  let message = text;
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    const found = typeof json.error === "string" ? json.error : (json.error?.message ?? json.message ?? json.detail);
    if (found !== undefined) message = typeof found === "string" ? found : JSON.stringify(found);
  } catch {
    // Plain text (or HTML) error pages: their first line will do.
  }
  return message.replace(/\s+/g, " ").trim().slice(0, 200);
}

function describe(error: unknown): string {
  if (error instanceof Error && error.name === "TimeoutError") return "timed out";
  return (error as { code?: string })?.code ?? (error instanceof Error ? error.message : String(error));
}

/** Reads a `verbose_json` or `json` answer (or plain text, which some servers send for `json`). */
export function readTranscript(body: string, format: "verbose_json" | "json", seconds?: number): Omit<SpeechTranscript, "requests"> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    const text = body.trim();
    if (format === "json" && text && !text.startsWith("<")) return { segments: null, text };
    throw new SttRequestError("the speech-to-text server's answer was not JSON", { transient: true });
  }
  const answer = (json ?? {}) as { text?: unknown; segments?: unknown; language?: unknown; duration?: unknown };
  const text = typeof answer.text === "string" ? answer.text.trim() : "";
  const language = typeof answer.language === "string" ? answer.language : undefined;
  if (!Array.isArray(answer.segments)) return { segments: null, text, language };
  const raw = answer.segments.flatMap((segment) => {
    const item = (segment ?? {}) as { start?: unknown; end?: unknown; text?: unknown };
    const start = readTime(item.start);
    const end = readTime(item.end);
    const words = typeof item.text === "string" ? item.text.trim() : "";
    return start === null || !words ? [] : [{ start, end: end ?? start, text: words }];
  });
  return { segments: inSeconds(raw, seconds ?? readTime(answer.duration)), text, language };
}

/** A time as a number, a numeric string, or `hh:mm:ss.fff`; null when it is none of those. */
export function readTime(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : null;
  if (typeof value !== "string") return null;
  const text = value.trim().replace(",", ".");
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const clock = /^(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:\.\d+)?)$/.exec(text);
  if (clock) return Number(clock[1] ?? 0) * 3600 + Number(clock[2]) * 60 + Number(clock[3]);
  const unit = /^(\d+(?:\.\d+)?)\s*(ms|s)$/.exec(text);
  if (unit) return Number(unit[1]) / (unit[2] === "ms" ? 1000 : 1);
  return null;
}

/**
 * Some servers count in nanoseconds (or milliseconds). A piece is at most a few tens of minutes, so
 * times far past that (or past the answer's own duration) are in a smaller unit.
 */
function inSeconds(segments: SpeechSegment[], duration: number | null): SpeechSegment[] {
  // A loop, not Math.max(...): a spread of hundreds of thousands of arguments overflows the stack.
  let last = 0;
  for (const segment of segments) if (segment.end > last) last = segment.end;
  const bound = duration !== null && duration > 0 && duration < 86_400 ? duration * 1.5 + 5 : 86_400;
  let divisor = 1;
  if (last > bound) divisor = [1e3, 1e6, 1e9].find((unit) => last / unit <= bound) ?? 1e9;
  return segments.map((segment) => ({ start: segment.start / divisor, end: Math.max(segment.start, segment.end) / divisor, text: segment.text }));
}
