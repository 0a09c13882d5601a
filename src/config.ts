import path from "node:path";
import { z } from "zod";
import { UPLOADS_PENDING_DEFAULT_MB } from "./modules/imports/pending-uploads";
import { DOCUMENT_MAX_MB_DEFAULT } from "./modules/documents/document-kinds";
import { parseResolveOverrides } from "./modules/imports/resolve-overrides";
import { taskPrefixes } from "./modules/llm/providers/openai-embeddings";
import { OPENAI_DEFAULT_BASE_URL, OPENAI_DEFAULT_CONTEXT_TOKENS, OPENAI_DEFAULT_TIMEOUT_MS } from "./modules/llm/providers/openai-settings";

const booleanFlag = z
  .enum(["true", "false", "1", "0", "yes", "no", ""])
  .transform((value) => value === "true" || value === "1" || value === "yes");

const PORT_RANGE = "must be a port number from 0 to 65535";
const port = z.coerce.number({ error: PORT_RANGE }).int(PORT_RANGE).min(0, PORT_RANGE).max(65535, PORT_RANGE);

const prefix = z
  .string()
  .max(200, "must be at most 200 characters")
  .transform((value) => (value === "none" ? "" : value))
  .optional();

const environmentSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  DATA_DIR: z.string().min(1).default("./data"),
  LIBSQL_URL: z
    .string()
    .regex(/^(file:|libsql:\/\/|https?:\/\/|wss?:\/\/)/, "must start with file:, libsql://, http(s):// or ws(s)://")
    .optional(),
  LIBSQL_AUTH_TOKEN: z.string().min(1).optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  ROLE: z.enum(["api", "worker", "all"]).default("all"),
  REGISTRATION: z.enum(["open", "closed"], { error: "must be open or closed (closed: no new accounts once one exists)" }).default("open"),
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  ANTHROPIC_BASE_URL: z.url().optional(),
  ANTHROPIC_MODEL: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL, e.g. http://127.0.0.1:11434/v1" }).optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_MODEL: z.string().min(1).optional(),
  // Below ~2k tokens the prompt and schema alone would not fit.
  OPENAI_CONTEXT_TOKENS: z.coerce.number().int().min(2048, "must be at least 2048 tokens").max(10_000_000).default(OPENAI_DEFAULT_CONTEXT_TOKENS),
  OPENAI_TIMEOUT_MS: z.coerce.number().int().min(1000, "must be at least 1000 (milliseconds)").max(86_400_000).default(OPENAI_DEFAULT_TIMEOUT_MS),
  GRAPH_EXTRACTOR: z.enum(["anthropic", "openai", "local"]).optional(),
  GRAPH_LLM_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  GRAPH_MAX_LLM_CALLS: z.coerce.number().int().min(1).optional(),
  EMBEDDINGS_BASE_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL, e.g. http://127.0.0.1:11434/v1" }).optional(),
  EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  EMBEDDINGS_MODEL: z.string().min(1).optional(),
  EMBEDDINGS_DIMENSIONS: z.coerce.number({ error: "must be a whole number of dimensions" }).int("must be a whole number of dimensions").min(1, "must be at least 1").max(65_536, "must be at most 65536 (libSQL's vector limit)").optional(),
  // DashScope takes 10 inputs a request, SiliconFlow 64, OpenAI 2048.
  // `none` turns off the prefix a model would get by default (see taskPrefixes); empty means unset, as everywhere.
  EMBEDDINGS_QUERY_PREFIX: prefix,
  EMBEDDINGS_DOCUMENT_PREFIX: prefix,
  EMBEDDINGS_BATCH: z.coerce.number({ error: "must be a whole number of inputs per request" }).int("must be a whole number of inputs per request").min(1, "must be at least 1").max(2048, "must be at most 2048").default(32),
  ASK_MAX_INPUT_TOKENS: z.coerce.number().int().min(500).max(1_000_000).default(8000),
  IMPORT_ALLOW_PRIVATE_NETWORKS: booleanFlag.default(false),
  IMPORT_RESOLVE: z
    .string()
    .optional()
    .transform((value, context) => {
      try {
        return parseResolveOverrides(value ?? "");
      } catch (error) {
        context.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    }),
  BILIBILI_SESSDATA: z.string().min(1).optional(),
  STT_BASE_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL, e.g. http://127.0.0.1:8000/v1 or https://api.groq.com/openai/v1" }).optional(),
  STT_API_KEY: z.string().min(1).optional(),
  STT_MODEL: z.string().min(1).optional(),
  STT_LANGUAGE: z.string().regex(/^[a-z]{2}$/, "must be an ISO-639-1 code of two lower-case letters, e.g. zh or en").optional(),
  STT_MAX_MINUTES: z.coerce.number().int().min(1, "must be at least 1 (minute)").max(24 * 60).default(180),
  STT_CHUNK_SECONDS: z.coerce.number().int().min(30, "must be at least 30 (seconds)").max(24 * 3600).default(600),
  STT_MAX_UPLOAD_MB: z.coerce.number().min(1, "must be at least 1 (MB)").max(1024).default(24),
  SECRET_KEY: z.string().min(32, "must be at least 32 characters (e.g. `openssl rand -base64 32`)").optional(),
  FILES_DIR: z.string().min(1).optional(),
  FILES_MAX_BYTES_PER_USER: z.coerce.number().int().min(0).default(1024 * 1024 * 1024),
  UPLOADS_PENDING_MAX_MB: z.coerce
    .number({ error: "must be a whole number of MB" })
    .int("must be a whole number of MB")
    .min(1, "must be at least 1 (MB)")
    .max(1024 * 1024, "must be at most 1048576 (MB)")
    .default(UPLOADS_PENDING_DEFAULT_MB),
  DOCUMENT_MAX_MB: z.coerce
    .number({ error: "must be a whole number of MB" })
    .int("must be a whole number of MB")
    .min(1, "must be at least 1 (MB)")
    .max(4096, "must be at most 4096 (MB)")
    .default(DOCUMENT_MAX_MB_DEFAULT),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  FEEDS_CONCURRENCY: z.coerce.number({ error: "must be a whole number" }).int("must be a whole number").min(1, "must be at least 1").max(64, "must be at most 64").default(4),
  OCR: z.enum(["local", "off"], { error: "must be local (read pictures' text on this machine) or off" }).default("local"),
  OCR_MAX_PICTURES: z.coerce
    .number({ error: "must be a whole number of pictures" })
    .int("must be a whole number of pictures")
    .min(1, "must be at least 1 (OCR=off turns OCR off)")
    .max(1000, "must be at most 1000")
    .default(30),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  NOTE_VERSIONS_MAX: z.coerce.number().int().min(0, "must be 0 (no history) or more").max(100_000).default(200),
  TRASH_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
  BACKUP_DIR: z.string().min(1).optional(),
  BACKUP_INTERVAL_HOURS: z.coerce.number().min(0, "must be 0 (off) or more hours").max(24 * 365).default(24),
  BACKUP_KEEP: z.coerce.number().int().min(1, "must keep at least 1 backup").max(10_000).default(7),
  WEBHOOK_RETRY_DELAYS: z
    .string()
    .default("10s,1m,10m,1h,6h,12h")
    .transform((value, context) => {
      const delays = parseDurations(value);
      if (typeof delays === "string") {
        context.addIssue({ code: "custom", message: delays });
        return z.NEVER;
      }
      return delays;
    }),
  PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL, the origin people and agents reach, e.g. https://notes.example.com" })
    .transform((value) => value.replace(/\/+$/, ""))
    .optional(),
  MCP_ALLOWED_ORIGINS: z
    .string()
    .transform((value, context) => {
      const origins = value.split(",").map((origin) => origin.trim()).filter(Boolean);
      for (const origin of origins) {
        if (!/^https?:\/\/[^/]+$/.test(origin) || !URL.canParse(origin) || new URL(origin).origin !== origin.toLowerCase()) {
          context.addIssue({ code: "custom", message: `has ${JSON.stringify(origin)}, which is not an origin like https://app.example.com (scheme, host, optional port; no path)` });
          return z.NEVER;
        }
      }
      return origins.map((origin) => origin.toLowerCase());
    })
    .optional(),
});

export type Config = ReturnType<typeof resolveConfig>;

const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `10s,1m,10m` → milliseconds; a message when a part is not a number with a unit (ms, s, m, h, d). */
function parseDurations(value: string): number[] | string {
  const parts = value.split(",").map((part) => part.trim());
  if (parts.length > 50) return "must list at most 50 delays";
  const delays: number[] = [];
  for (const part of parts) {
    const match = /^(\d{1,9})(ms|s|m|h|d)$/.exec(part);
    if (!match) return `has ${JSON.stringify(part)}, which is not a delay like 30s, 10m or 6h (units ms, s, m, h, d), e.g. 10s,1m,10m,1h,6h,12h`;
    delays.push(Number(match[1]) * DURATION_UNITS_MS[match[2] as keyof typeof DURATION_UNITS_MS]);
  }
  return delays;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Parses the environment once at start-up; a bad variable stops the process with one line naming it. */
export function loadConfig(environment: Record<string, string | undefined> = process.env): Config {
  // An empty variable means "not set", as in most shells' `VAR= command`.
  const present = Object.fromEntries(
    Object.entries(environment).filter(([key, value]) => key in environmentSchema.shape && value !== ""),
  );
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid configuration: ${String(issue.path[0])} ${issue.message}`);
  }
  return resolveConfig(parsed.data);
}

function resolveConfig(env: z.infer<typeof environmentSchema>) {
  const dataDir = path.resolve(env.DATA_DIR);
  const openAiWanted = Boolean(env.OPENAI_BASE_URL || env.OPENAI_API_KEY || env.OPENAI_MODEL);
  const extractor = env.GRAPH_EXTRACTOR ?? (env.ANTHROPIC_API_KEY ? "anthropic" : openAiWanted ? "openai" : "local");
  if (extractor === "anthropic" && !env.ANTHROPIC_API_KEY) {
    throw new ConfigError("Invalid configuration: GRAPH_EXTRACTOR is anthropic but ANTHROPIC_API_KEY is not set");
  }
  if (extractor === "openai" && !env.OPENAI_MODEL) {
    throw new ConfigError(
      "Invalid configuration: OPENAI_MODEL is not set; the openai graph extractor needs the model to ask (e.g. OPENAI_MODEL=qwen3:8b for Ollama, deepseek-v4-flash for DeepSeek)",
    );
  }
  if (env.STT_BASE_URL && !env.STT_MODEL) {
    throw new ConfigError("Invalid configuration: STT_MODEL is not set; STT_BASE_URL needs the speech-to-text model to ask (e.g. whisper-1 for OpenAI, whisper-large-v3-turbo for Groq, Systran/faster-whisper-small for speaches)");
  }
  if (env.EMBEDDINGS_BASE_URL && !env.EMBEDDINGS_MODEL) {
    throw new ConfigError("Invalid configuration: EMBEDDINGS_MODEL is not set; EMBEDDINGS_BASE_URL needs the embedding model to ask for (e.g. EMBEDDINGS_MODEL=bge-m3 for Ollama)");
  }
  if (!env.EMBEDDINGS_BASE_URL && env.EMBEDDINGS_MODEL) {
    throw new ConfigError("Invalid configuration: EMBEDDINGS_BASE_URL is not set; EMBEDDINGS_MODEL needs the server to ask (e.g. http://127.0.0.1:11434/v1 for Ollama)");
  }
  return {
    port: env.PORT,
    host: env.HOST,
    dataDir,
    libsqlUrl: env.LIBSQL_URL ?? `file:${path.join(dataDir, "rhizome.db")}`,
    libsqlAuthToken: env.LIBSQL_AUTH_TOKEN,
    databaseUrl: env.DATABASE_URL,
    role: env.ROLE,
    /** `closed`: POST /api/auth/register refuses once one account exists. */
    registration: env.REGISTRATION,
    secretKey: env.SECRET_KEY,
    /** The external origin (links, MCP's allowed Origin); unset: the address the server listens on. */
    publicUrl: env.PUBLIC_URL,
    mcp: { allowedOrigins: env.MCP_ALLOWED_ORIGINS ?? [] },
    history: { maxVersions: env.NOTE_VERSIONS_MAX, trashDays: env.TRASH_DAYS },
    /** Scheduled backups of a local notes database and the files; `intervalHours` 0 turns them off. */
    backups: { dir: env.BACKUP_DIR ? path.resolve(env.BACKUP_DIR) : path.join(dataDir, "backups"), intervalHours: env.BACKUP_INTERVAL_HOURS, keep: env.BACKUP_KEEP },
    logLevel: env.LOG_LEVEL,
    imports: {
      allowPrivateNetworks: env.IMPORT_ALLOW_PRIVATE_NETWORKS,
      resolveOverrides: env.IMPORT_RESOLVE,
      bilibiliSessdata: env.BILIBILI_SESSDATA,
      /** Uploaded archives wait here for their task (and are deleted when it ends). */
      archivesDir: path.join(dataDir, "archives"),
      /** UPLOADS_PENDING_MAX_MB: a user's uploads waiting for their tasks (recordings, archives) may hold this much at a time. */
      pendingUploadsMaxBytes: env.UPLOADS_PENDING_MAX_MB * 1024 * 1024,
      /** DOCUMENT_MAX_MB: the largest document (PDF, EPUB, DOCX, text) an upload or a web import takes. */
      documentMaxBytes: env.DOCUMENT_MAX_MB * 1024 * 1024,
    },
    /** Speech-to-text for videos and recordings; undefined when STT_BASE_URL is unset (no transcription). */
    stt: env.STT_BASE_URL
      ? {
          baseURL: env.STT_BASE_URL,
          apiKey: env.STT_API_KEY,
          model: env.STT_MODEL!,
          language: env.STT_LANGUAGE,
          maxSeconds: env.STT_MAX_MINUTES * 60,
          chunkSeconds: env.STT_CHUNK_SECONDS,
          maxBytes: Math.floor(env.STT_MAX_UPLOAD_MB * 1024 * 1024),
          /** Downloads and uploads wait here (DATA_DIR/media), each deleted when its task ends. */
          mediaDir: path.join(dataDir, "media"),
        }
      : undefined,
    /** Stored images: content-addressed under `dir`, each user's total capped. */
    files: {
      dir: env.FILES_DIR ? path.resolve(env.FILES_DIR) : path.join(dataDir, "files"),
      maxBytesPerUser: env.FILES_MAX_BYTES_PER_USER,
    },
    worker: { concurrency: env.WORKER_CONCURRENCY },
    /** FEEDS_CONCURRENCY: feeds fetched at once, across every worker. */
    feeds: { concurrency: env.FEEDS_CONCURRENCY },
    /** Pictures' text read by the local OCR engine into their notes; undefined with OCR=off. */
    ocr: env.OCR === "local" ? { maxPictures: env.OCR_MAX_PICTURES } : undefined,
    /** The waits before each retry of a failed webhook delivery (WEBHOOK_RETRY_DELAYS): one more attempt than delays. */
    webhooks: { retryDelaysMs: env.WEBHOOK_RETRY_DELAYS },
    ask: { maxInputTokens: env.ASK_MAX_INPUT_TOKENS },
    /** Search by meaning: unset, search and ask stay lexical. */
    embeddings:
      env.EMBEDDINGS_BASE_URL && env.EMBEDDINGS_MODEL
        ? {
            baseURL: env.EMBEDDINGS_BASE_URL,
            apiKey: env.EMBEDDINGS_API_KEY,
            model: env.EMBEDDINGS_MODEL,
            dimensions: env.EMBEDDINGS_DIMENSIONS,
            batchSize: env.EMBEDDINGS_BATCH,
            queryPrefix: env.EMBEDDINGS_QUERY_PREFIX ?? taskPrefixes(env.EMBEDDINGS_MODEL).queryPrefix,
            documentPrefix: env.EMBEDDINGS_DOCUMENT_PREFIX ?? taskPrefixes(env.EMBEDDINGS_MODEL).documentPrefix,
          }
        : undefined,
    graph: {
      extractor,
      llmConcurrency: env.GRAPH_LLM_CONCURRENCY,
      maxLlmCalls: env.GRAPH_MAX_LLM_CALLS,
      anthropic: {
        apiKey: env.ANTHROPIC_API_KEY,
        baseURL: env.ANTHROPIC_BASE_URL,
        model: env.ANTHROPIC_MODEL,
      },
      // Whenever a model is named, so other LLM users (ask) can reach the server whatever builds the graph.
      openai: env.OPENAI_MODEL
        ? {
            baseURL: env.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL,
            apiKey: env.OPENAI_API_KEY,
            model: env.OPENAI_MODEL,
            contextTokens: env.OPENAI_CONTEXT_TOKENS,
            timeoutMs: env.OPENAI_TIMEOUT_MS,
          }
        : undefined,
    },
  } as const;
}
