import { ALL_FORMATS, BufferSource, EncodedPacketSink, Input } from "mediabunny";
import { frameTime } from "./aac-audio";

/**
 * A stand-in for an OpenAI-compatible transcription server (`POST /v1/audio/transcriptions`) on
 * loopback. It parses the multipart form as the real ones do, refuses what they refuse (no file,
 * no model, an upload that is not an MP4 — checked by its `ftyp` box), and "hears" the synthetic
 * recordings of aac-audio.ts: speech there is one sentence every 5 s (`Sentence <n>.`, 4 s long,
 * then a 1 s pause), sentence n at 5n s on the original recording's clock. Times in the answer are
 * relative to the uploaded file, as a real server's are; a sentence the file cuts off is answered
 * as `Sentence <n> (cut).`, so a test can check that cuts are never kept and nothing is doubled.
 */
export type SttMode = "verbose" | "refuse-verbose" | "string-times" | "nanoseconds" | "rate-limited-once" | "fail" | "unauthorized";

export interface SttUpload {
  model: string;
  format: string;
  language: string | null;
  granularities: string[];
  filename: string;
  bytes: number;
  /** Where the piece starts on the original recording's clock, and how long it is. */
  start: number;
  duration: number;
  /** How long the stand-in took to read the upload and answer (what a client waits for, besides the transfer). */
  handledMs: number;
}

export function startFakeStt(options: { mode?: SttMode; apiKey?: string } = {}) {
  const state = {
    mode: options.mode ?? ("verbose" as SttMode),
    uploads: [] as SttUpload[],
    requests: 0,
    /** Requests refused (any status other than 200). */
    refused: 0,
    /** Accepted uploads past this many wait for `gate` before they are answered (a test holds the server mid-recording). */
    holdAfter: Infinity,
    gate: new Promise<void>(() => {}),
    retryAfter: "0",
    /** When set, every accepted upload is answered with this body as it is (an answer a real server might send: huge, odd). */
    answer: null as null | (() => BodyInit),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    maxRequestBodySize: 64 * 1024 * 1024,
    async fetch(request) {
      const began = performance.now();
      const url = new URL(request.url);
      if (request.method !== "POST" || url.pathname !== "/v1/audio/transcriptions") return error(404, "Not found");
      state.requests++;
      if (options.apiKey && request.headers.get("authorization") !== `Bearer ${options.apiKey}`) return refuse(401, "Incorrect API key provided");
      if (state.mode === "unauthorized") return refuse(401, "Incorrect API key provided");
      if (!(request.headers.get("content-type") ?? "").startsWith("multipart/form-data")) return refuse(400, "Expected multipart/form-data");
      const form = await request.formData();
      const file = form.get("file");
      const model = form.get("model");
      if (!(file instanceof Blob)) return refuse(400, "file is required");
      if (typeof model !== "string" || !model) return refuse(400, "model is required");
      const format = String(form.get("response_format") ?? "json");
      if (state.mode === "refuse-verbose" && format === "verbose_json") return refuse(400, "response_format 'verbose_json' is not supported for this model");
      if (state.mode === "rate-limited-once" && state.refused === 0) return refuse(429, "Rate limit reached", { "retry-after": state.retryAfter });
      if (state.mode === "fail") return refuse(500, "The server had an error while processing your request", { "retry-after": "0" });
      const bytes = new Uint8Array(await file.arrayBuffer());
      if (String.fromCharCode(...bytes.subarray(4, 8)) !== "ftyp") return refuse(400, "Invalid file format: not an MP4/M4A");
      const heard = await hear(bytes);
      if (!heard) return refuse(400, "Audio file could not be decoded");
      state.uploads.push({
        model,
        format,
        language: (form.get("language") as string | null) ?? null,
        granularities: form.getAll("timestamp_granularities[]").map(String),
        filename: (file as File).name,
        bytes: bytes.byteLength,
        ...heard,
        handledMs: performance.now() - began,
      });
      if (state.uploads.length > state.holdAfter) await state.gate;
      if (state.answer) return new Response(state.answer(), { headers: { "content-type": "application/json" } });
      const segments = sentences(heard.start, heard.duration);
      const text = segments.map((segment) => segment.text).join(" ");
      if (format !== "verbose_json") return Response.json({ text });
      const time = (seconds: number) =>
        state.mode === "string-times" ? seconds.toFixed(2) : state.mode === "nanoseconds" ? Math.round(seconds * 1e9) : seconds;
      return Response.json({
        task: "transcribe",
        language: "english",
        duration: state.mode === "nanoseconds" ? undefined : heard.duration,
        text,
        segments: segments.map((segment, id) => ({ id, seek: 0, start: time(segment.start), end: time(segment.end), text: ` ${segment.text}`, tokens: [], temperature: 0, avg_logprob: -0.2, compression_ratio: 1.2, no_speech_prob: 0.01 })),
      });
    },
  });
  function refuse(status: number, message: string, headers: Record<string, string> = {}) {
    state.refused++;
    return error(status, message, headers);
  }
  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    state,
    stop: () => server.stop(true),
  };
}

function error(status: number, message: string, headers: Record<string, string> = {}) {
  return Response.json({ error: { message, type: "invalid_request_error", code: null } }, { status, headers });
}

/** Reads the uploaded MP4: where its first frame was on the original clock, and its length. */
async function hear(bytes: Uint8Array): Promise<{ start: number; duration: number } | null> {
  const input = new Input({ source: new BufferSource(bytes), formats: ALL_FORMATS });
  try {
    const track = await input.getPrimaryAudioTrack();
    if (!track || (await track.getCodec()) !== "aac") return null;
    const first = await new EncodedPacketSink(track).getFirstPacket();
    if (!first || first.timestamp !== 0) return null;
    return { start: frameTime(first.data), duration: await input.computeDuration() };
  } catch {
    return null;
  } finally {
    input.dispose();
  }
}

/** The sentences a file from `start` lasting `duration` holds, timed from the file's own start. */
export function sentences(start: number, duration: number): { start: number; end: number; text: string }[] {
  const end = start + duration;
  const result = [];
  for (let n = Math.floor(start / 5); n * 5 < end; n++) {
    const from = n * 5;
    const to = from + 4;
    if (to <= start) continue;
    const whole = from >= start - 0.001 && to <= end + 0.001;
    result.push({ start: Math.max(from, start) - start, end: Math.min(to, end) - start, text: whole ? `Sentence ${n}.` : `Sentence ${n} (cut).` });
  }
  return result;
}
