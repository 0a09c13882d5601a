/**
 * A local stand-in for an OpenAI-compatible embeddings server (`POST /v1/embeddings`), for tests and
 * benchmarks that must never reach the internet. It speaks the wire format real servers do —
 * `{data: [{object: "embedding", index, embedding}], model, usage}`, float arrays or base64
 * little-endian float32 (`encoding_format: "base64"`), `dimensions`, OpenAI's error envelope — and
 * computes deterministic vectors that carry meaning for the test corpus: words of one synonym group
 * in English or Chinese (car/automobile/汽车, buy/purchase/买, kitten/小猫, …) share a dimension, as a
 * multilingual model maps a word and its translation near one point, and every other word adds a
 * little spread over a few hashed dimensions (so two unrelated words are nearly orthogonal, as with a
 * real model, never one vector), so a test can tell a match by meaning from one by words.
 * Another model name rotates the concept dimensions: its vectors do not compare with the first's.
 *
 * Its failures are switches a test flips: 429 with Retry-After, 500s, slow answers, wrong
 * dimensions, base64 answers, 401, a batch limit (413 or DashScope's 400), and a bound on inputs a
 * second (benchmarks measure against it). Every request is logged.
 */
import { createHash } from "node:crypto";
import { seededRandom } from "../../src/modules/graph/seeded-random";

/** Synonym groups across English and Chinese: each is one dimension of meaning. */
export const CONCEPT_GROUPS: string[][] = [
  ["car", "cars", "automobile", "automobiles", "vehicle", "vehicles", "汽车", "轿车"],
  ["buy", "buying", "bought", "purchase", "purchasing", "purchased", "acquire", "买", "购买", "购置"],
  ["anchoring", "anchor", "anchored", "锚定"],
  ["effect", "effects", "bias", "效应", "偏差"],
  ["loss", "losses", "损失"],
  ["aversion", "averse", "厌恶"],
  ["knowledge", "知识"],
  ["graph", "graphs", "图谱"],
  ["bread", "sourdough", "loaf", "面包"],
  ["bake", "baking", "baked", "oven", "烘焙", "烤"],
  ["database", "databases", "sqlite", "数据库"],
  ["lock", "locks", "locking", "busy", "锁"],
  ["timeout", "timeouts", "wait", "waiting", "超时", "等待"],
  ["neural", "神经"],
  ["network", "networks", "网络"],
  ["learning", "learn", "learned", "学习"],
  ["gradient", "descent", "梯度", "下降"],
  ["decision", "decisions", "judgment", "judgement", "决策", "判断"],
  ["number", "numbers", "price", "prices", "数字", "价格"],
  ["travel", "trip", "journey", "旅行", "旅游"],
  ["garden", "gardening", "plants", "花园", "植物"],
  ["money", "finance", "savings", "钱", "理财"],
  ["kitten", "kittens", "小猫", "幼猫"],
];

const STOPWORDS = new Set(
  "a an the is are was were be to of in on at for and or with what how why who which that this it its i my me we you your do does did about from by as not no into 的 是 了 在 和 与 什么 怎么 一个 我".split(" "),
);
const HASHED_WEIGHT = 0.3;
// Dimensions a word outside the groups is spread over: one alone made two unrelated words now and then identical.
const HASHED_SPREAD = 3;

export interface FakeEmbeddingsOptions {
  /** The length of vectors when a request names no `dimensions` (default 64). */
  dimensions?: number;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /**
   * Vectors spread over every dimension, as real models' are: the meaning vector times a fixed random
   * Gaussian matrix, which keeps similarities to within a few hundredths. For benchmarks of the vector
   * index: its 1-bit neighbour codes see next to nothing in a vector that is mostly zeros.
   */
  dense?: boolean;
}

export interface EmbeddingsRequestLog {
  model: string;
  input: string[];
  dimensions?: number;
  encoding_format?: string;
  authorization: string | null;
  /** When it arrived (Date.now()), for checking waits between retries. */
  at: number;
}

export interface FakeEmbeddings {
  url: string;
  /** Every request answered or refused, oldest first. */
  requests: EmbeddingsRequestLog[];
  /** Every input text embedded (answered requests only), oldest first. */
  embedded(): string[];
  /** The switches; change them at any time. */
  mode: {
    /** The next this many requests get 429 with `Retry-After: retryAfterSeconds`. */
    rateLimited: number;
    retryAfterSeconds: number;
    /** The next this many requests get 500. */
    failures: number;
    /** Every request gets this status (401, 404, 500, …) until cleared. */
    status: number | null;
    /** Answers wait this long. */
    delayMs: number;
    /** Vectors come as base64 whatever was asked. */
    base64: boolean;
    /** Vectors are one dimension short. */
    wrongDimensions: boolean;
    /** More inputs than this in one request are refused: 413, or DashScope's 400. */
    maxBatch: number | null;
    batchRefusal: "413" | "dashscope";
    /** At most this many inputs a second, all requests together (a server's own throughput); null: unbounded. */
    inputsPerSecond: number | null;
  };
  /** The vector this server gives `text` under `model` (for tests that compute expected similarities). */
  vectorOf(text: string, model: string, dimensions?: number): Float32Array;
  stop(): Promise<void>;
}

export function startFakeEmbeddings(options: FakeEmbeddingsOptions = {}): FakeEmbeddings {
  const baseDimensions = options.dimensions ?? 64;
  const requests: EmbeddingsRequestLog[] = [];
  const embeddedTexts: string[] = [];
  const mode: FakeEmbeddings["mode"] = {
    rateLimited: 0,
    retryAfterSeconds: 1,
    failures: 0,
    status: null,
    delayMs: 0,
    base64: false,
    wrongDimensions: false,
    maxBatch: null,
    batchRefusal: "413",
    inputsPerSecond: null,
  };
  // The time the bounded server is busy until (its queue of work).
  let busyUntil = 0;

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (request.method !== "POST" || !url.pathname.endsWith("/embeddings")) return error(404, `no route ${request.method} ${url.pathname}`);
      let body: { model?: unknown; input?: unknown; dimensions?: unknown; encoding_format?: unknown };
      try {
        body = (await request.json()) as typeof body;
      } catch {
        return error(400, "the body is not JSON");
      }
      const input = typeof body.input === "string" ? [body.input] : Array.isArray(body.input) ? body.input.map(String) : [];
      const model = typeof body.model === "string" ? body.model : "";
      const dimensions = typeof body.dimensions === "number" ? body.dimensions : undefined;
      const encoding = typeof body.encoding_format === "string" ? body.encoding_format : undefined;
      requests.push({ model, input, dimensions, encoding_format: encoding, authorization: request.headers.get("authorization"), at: Date.now() });
      if (options.apiKey && request.headers.get("authorization") !== `Bearer ${options.apiKey}`) return error(401, "Incorrect API key provided");
      if (mode.status !== null) return error(mode.status, mode.status === 404 ? `model ${model} not found` : "the server failed");
      if (mode.rateLimited > 0) {
        mode.rateLimited--;
        return error(429, "Rate limit reached", { "retry-after": String(mode.retryAfterSeconds) });
      }
      if (mode.failures > 0) {
        mode.failures--;
        return error(500, "internal error");
      }
      if (!model) return error(400, "you must provide a model parameter");
      if (input.length === 0) return error(400, "input must not be empty");
      if (mode.maxBatch !== null && input.length > mode.maxBatch) {
        return mode.batchRefusal === "413"
          ? error(413, `too many inputs: at most ${mode.maxBatch}`)
          : Response.json({ code: "InvalidParameter", message: `<400> InternalError.Algo.InvalidParameter: Value error, batch size is invalid, it should not be larger than ${mode.maxBatch}.: input.contents`, request_id: "fake" }, { status: 400 });
      }
      if (mode.delayMs > 0) await Bun.sleep(mode.delayMs);
      if (mode.inputsPerSecond !== null) {
        const start = Math.max(Date.now(), busyUntil);
        busyUntil = start + (input.length / mode.inputsPerSecond) * 1000;
        await Bun.sleep(busyUntil - Date.now());
      }
      const length = (dimensions ?? baseDimensions) - (mode.wrongDimensions ? 1 : 0);
      const base64 = mode.base64 || encoding === "base64";
      embeddedTexts.push(...input);
      return Response.json({
        object: "list",
        model,
        data: input.map((text, index) => {
          const vector = embed(text, model, length, options.dense);
          return { object: "embedding", index, embedding: base64 ? Buffer.from(vector.buffer).toString("base64") : Array.from(vector) };
        }),
        usage: { prompt_tokens: input.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0), total_tokens: input.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0) },
      });
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    embedded: () => [...embeddedTexts],
    mode,
    vectorOf: (text, model, dimensions) => embed(text, model, dimensions ?? baseDimensions, options.dense),
    async stop() {
      await server.stop(true);
    },
  };
}

function error(status: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error: { message, type: status === 401 ? "invalid_request_error" : "server_error", param: null, code: null } }, { status, headers });
}

const wordToGroup = new Map<string, number>();
CONCEPT_GROUPS.forEach((group, index) => group.forEach((word) => wordToGroup.set(word, index)));
// Chinese entries, longest first, found inside runs of Han characters (which have no spaces).
const hanEntries = [...wordToGroup.keys()].filter((word) => /\p{Script=Han}/u.test(word)).sort((a, b) => b.length - a.length);

/** The words of a text: Latin words lowercased, and in Han runs the dictionary's entries, then the other characters in pairs. */
export function fakeTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.normalize("NFKC").toLowerCase().matchAll(/\p{Script=Han}+|[\p{L}\p{N}_]+/gu)) {
    const run = match[0];
    if (!/\p{Script=Han}/u.test(run)) {
      tokens.push(run);
      continue;
    }
    let rest = run;
    for (const entry of hanEntries) {
      if (!rest.includes(entry)) continue;
      for (let count = rest.split(entry).length - 1; count > 0; count--) tokens.push(entry);
      rest = rest.split(entry).join(" ");
    }
    for (const piece of rest.split(" ").filter(Boolean)) {
      if (piece.length === 1) tokens.push(piece);
      for (let index = 0; index + 1 < piece.length; index++) tokens.push(piece.slice(index, index + 2));
    }
  }
  return tokens.filter((token) => !STOPWORDS.has(token));
}

function embed(text: string, model: string, length: number, dense = false): Float32Array {
  const sparse = meaningVector(text, model, length);
  if (!dense) return sparse;
  const vector = new Float32Array(length);
  sparse.forEach((weight, index) => {
    if (weight === 0) return;
    const column = spreadColumn(model, length, index);
    for (let row = 0; row < length; row++) vector[row]! += weight * column[row]!;
  });
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  return vector.map((value) => value / norm);
}

const spreadColumns = new Map<string, Float32Array>();

/** Column `index` of the model's fixed Gaussian matrix (seeded, so every process computes the same). */
function spreadColumn(model: string, length: number, index: number): Float32Array {
  const key = `${model}:${length}:${index}`;
  let column = spreadColumns.get(key);
  if (column) return column;
  const random = seededRandom(hashNumber(key));
  column = new Float32Array(length);
  for (let row = 0; row < length; row++) column[row] = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random()) / Math.sqrt(length);
  spreadColumns.set(key, column);
  return column;
}

function meaningVector(text: string, model: string, length: number): Float32Array {
  const vector = new Float32Array(length);
  const conceptDimensions = Math.min(CONCEPT_GROUPS.length, Math.max(1, Math.floor(length / 2)));
  const rotation = hashNumber(`rotation:${model}`) % conceptDimensions;
  for (const token of fakeTokens(text)) {
    const group = wordToGroup.get(token);
    if (group !== undefined) vector[(group + rotation) % conceptDimensions]! += 1;
    else {
      const span = length - conceptDimensions;
      for (let copy = 0; copy < HASHED_SPREAD && span > 0; copy++) {
        const hashed = hashNumber(copy === 0 ? `${model}:${token}` : `${model}:${token}:${copy}`);
        vector[conceptDimensions + (hashed % span)]! += (hashed & 1 ? HASHED_WEIGHT : -HASHED_WEIGHT) / Math.sqrt(HASHED_SPREAD);
      }
    }
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  // An empty text still gets a direction of its own (real servers never answer zeros).
  if (norm === 0) {
    vector[length - 1] = 1;
    return vector;
  }
  for (let index = 0; index < length; index++) vector[index]! /= norm;
  return vector;
}

function hashNumber(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32LE(0);
}
