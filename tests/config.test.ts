import { describe, expect, test } from "bun:test";
import path from "node:path";
import { ConfigError, loadConfig } from "../src/config";
import { resolverWith } from "../src/modules/imports/resolve-overrides";

describe("configuration", () => {
  test("defaults follow the contract", () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.host).toBe("127.0.0.1");
    expect(config.dataDir).toBe(path.resolve("./data"));
    expect(config.libsqlUrl).toBe(`file:${path.resolve("./data/rhizome.db")}`);
    expect(config.role).toBe("all");
    expect(config.registration).toBe("open");
    expect(loadConfig({ REGISTRATION: "closed" }).registration).toBe("closed");
    expect(config.graph.extractor).toBe("local");
    expect(config.imports.allowPrivateNetworks).toBe(false);
    expect(config.ask.maxInputTokens).toBe(8000);
  });

  test("EMBEDDINGS_* set up search by meaning (batch 32, no dimensions unless set); unset, it is off", () => {
    expect(loadConfig({}).embeddings).toBeUndefined();
    expect(loadConfig({ EMBEDDINGS_BASE_URL: "http://127.0.0.1:11434/v1", EMBEDDINGS_MODEL: "bge-m3", EMBEDDINGS_API_KEY: "" }).embeddings).toEqual({
      baseURL: "http://127.0.0.1:11434/v1",
      apiKey: undefined,
      model: "bge-m3",
      dimensions: undefined,
      batchSize: 32,
      queryPrefix: "",
      documentPrefix: "",
    });
    expect(loadConfig({ EMBEDDINGS_BASE_URL: "https://x/v1", EMBEDDINGS_MODEL: "m", EMBEDDINGS_DIMENSIONS: "512", EMBEDDINGS_BATCH: "10" }).embeddings).toMatchObject({ dimensions: 512, batchSize: 10 });
  });

  test("models trained with task prefixes get them (nomic-embed-text, E5); EMBEDDINGS_*_PREFIX overrides, none turns them off", () => {
    const ollama = { EMBEDDINGS_BASE_URL: "http://127.0.0.1:11434/v1" };
    expect(loadConfig({ ...ollama, EMBEDDINGS_MODEL: "nomic-embed-text:latest" }).embeddings).toMatchObject({ queryPrefix: "search_query: ", documentPrefix: "search_document: " });
    expect(loadConfig({ ...ollama, EMBEDDINGS_MODEL: "intfloat/multilingual-e5-large" }).embeddings).toMatchObject({ queryPrefix: "query: ", documentPrefix: "passage: " });
    expect(loadConfig({ ...ollama, EMBEDDINGS_MODEL: "text-embedding-3-small" }).embeddings).toMatchObject({ queryPrefix: "", documentPrefix: "" });
    expect(loadConfig({ ...ollama, EMBEDDINGS_MODEL: "nomic-embed-text", EMBEDDINGS_QUERY_PREFIX: "none", EMBEDDINGS_DOCUMENT_PREFIX: "doc: " }).embeddings).toMatchObject({ queryPrefix: "", documentPrefix: "doc: " });
  });

  test("an API key switches the extractor to anthropic unless overridden", () => {
    expect(loadConfig({ ANTHROPIC_API_KEY: "k" }).graph.extractor).toBe("anthropic");
    expect(loadConfig({ ANTHROPIC_API_KEY: "k", GRAPH_EXTRACTOR: "local" }).graph.extractor).toBe("local");
  });

  test("OPENAI_* switch the extractor to openai (anthropic wins when both are set), with the contract's defaults", () => {
    const config = loadConfig({ OPENAI_MODEL: "qwen3:8b" });
    expect(config.graph.extractor).toBe("openai");
    expect(config.graph.openai).toEqual({ baseURL: "https://api.openai.com/v1", apiKey: undefined, model: "qwen3:8b", contextTokens: 8192, timeoutMs: 120_000 });
    expect(loadConfig({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1", OPENAI_MODEL: "m", OPENAI_CONTEXT_TOKENS: "32768", OPENAI_TIMEOUT_MS: "600000" }).graph.openai).toMatchObject({
      baseURL: "http://127.0.0.1:11434/v1",
      contextTokens: 32768,
      timeoutMs: 600_000,
    });
    expect(loadConfig({ ANTHROPIC_API_KEY: "k", OPENAI_MODEL: "m" }).graph.extractor).toBe("anthropic");
    expect(loadConfig({ GRAPH_EXTRACTOR: "openai", OPENAI_MODEL: "m", OPENAI_API_KEY: "" }).graph.openai!.apiKey).toBeUndefined();
  });

  test.each([
    [{ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" }, "OPENAI_MODEL"],
    [{ OPENAI_API_KEY: "sk-x" }, "OPENAI_MODEL"],
    [{ GRAPH_EXTRACTOR: "openai" }, "OPENAI_MODEL"],
    [{ OPENAI_MODEL: "m", OPENAI_CONTEXT_TOKENS: "1000" }, "OPENAI_CONTEXT_TOKENS"],
    [{ OPENAI_MODEL: "m", OPENAI_TIMEOUT_MS: "soon" }, "OPENAI_TIMEOUT_MS"],
    [{ OPENAI_MODEL: "m", OPENAI_BASE_URL: "localhost:11434" }, "OPENAI_BASE_URL"],
    [{ PORT: "http" }, "PORT"],
    [{ PORT: "70000" }, "PORT"],
    [{ ROLE: "both" }, "ROLE"],
    [{ REGISTRATION: "invite-only" }, "REGISTRATION"],
    [{ DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    [{ LIBSQL_URL: "/tmp/x.db" }, "LIBSQL_URL"],
    [{ SECRET_KEY: "short" }, "SECRET_KEY"],
    [{ IMPORT_ALLOW_PRIVATE_NETWORKS: "maybe" }, "IMPORT_ALLOW_PRIVATE_NETWORKS"],
    [{ IMPORT_RESOLVE: "mp.weixin.qq.com" }, "IMPORT_RESOLVE"],
    [{ IMPORT_RESOLVE: "mp.weixin.qq.com=not-an-address" }, "IMPORT_RESOLVE"],
    [{ GRAPH_EXTRACTOR: "anthropic" }, "GRAPH_EXTRACTOR"],
    [{ ASK_MAX_INPUT_TOKENS: "100" }, "ASK_MAX_INPUT_TOKENS"],
    [{ ASK_MAX_INPUT_TOKENS: "lots" }, "ASK_MAX_INPUT_TOKENS"],
    [{ STT_BASE_URL: "http://127.0.0.1:8000/v1" }, "STT_MODEL"],
    [{ STT_BASE_URL: "127.0.0.1:8000", STT_MODEL: "m" }, "STT_BASE_URL"],
    [{ STT_LANGUAGE: "Chinese" }, "STT_LANGUAGE"],
    [{ STT_CHUNK_SECONDS: "5" }, "STT_CHUNK_SECONDS"],
    [{ STT_MAX_MINUTES: "0" }, "STT_MAX_MINUTES"],
    [{ STT_MAX_UPLOAD_MB: "lots" }, "STT_MAX_UPLOAD_MB"],
    [{ EMBEDDINGS_BASE_URL: "http://127.0.0.1:11434/v1" }, "EMBEDDINGS_MODEL"],
    [{ EMBEDDINGS_MODEL: "bge-m3" }, "EMBEDDINGS_BASE_URL"],
    [{ EMBEDDINGS_MODEL: "bge-m3", EMBEDDINGS_BASE_URL: "127.0.0.1:11434" }, "EMBEDDINGS_BASE_URL"],
    [{ EMBEDDINGS_MODEL: "m", EMBEDDINGS_BASE_URL: "http://x/v1", EMBEDDINGS_DIMENSIONS: "0" }, "EMBEDDINGS_DIMENSIONS"],
    [{ EMBEDDINGS_MODEL: "m", EMBEDDINGS_BASE_URL: "http://x/v1", EMBEDDINGS_DIMENSIONS: "big" }, "EMBEDDINGS_DIMENSIONS"],
    [{ EMBEDDINGS_MODEL: "m", EMBEDDINGS_BASE_URL: "http://x/v1", EMBEDDINGS_BATCH: "0" }, "EMBEDDINGS_BATCH"],
    [{ UPLOADS_PENDING_MAX_MB: "0" }, "UPLOADS_PENDING_MAX_MB"],
    [{ UPLOADS_PENDING_MAX_MB: "1.5" }, "UPLOADS_PENDING_MAX_MB"],
    [{ UPLOADS_PENDING_MAX_MB: "a lot" }, "UPLOADS_PENDING_MAX_MB"],
    [{ FEEDS_CONCURRENCY: "0" }, "FEEDS_CONCURRENCY"],
    [{ FEEDS_CONCURRENCY: "2.5" }, "FEEDS_CONCURRENCY"],
    [{ FEEDS_CONCURRENCY: "many" }, "FEEDS_CONCURRENCY"],
    [{ OCR: "tesseract" }, "OCR"],
    [{ OCR: "on" }, "OCR"],
    [{ OCR_MAX_PICTURES: "0" }, "OCR_MAX_PICTURES"],
    [{ OCR_MAX_PICTURES: "2.5" }, "OCR_MAX_PICTURES"],
    [{ OCR_MAX_PICTURES: "many" }, "OCR_MAX_PICTURES"],
    [{ DOCUMENT_MAX_MB: "0" }, "DOCUMENT_MAX_MB"],
    [{ DOCUMENT_MAX_MB: "2.5" }, "DOCUMENT_MAX_MB"],
    [{ DOCUMENT_MAX_MB: "big" }, "DOCUMENT_MAX_MB"],
  ])("%j stops start-up with one line naming the variable", (environment, variable) => {
    expect(() => loadConfig(environment)).toThrow(ConfigError);
    try {
      loadConfig(environment);
    } catch (error) {
      expect((error as Error).message).toContain(variable);
      expect((error as Error).message).not.toContain("\n");
    }
  });

  test("FEEDS_CONCURRENCY: 4 feeds fetched at once, unless set", () => {
    expect(loadConfig({}).feeds.concurrency).toBe(4);
    expect(loadConfig({ FEEDS_CONCURRENCY: "12" }).feeds.concurrency).toBe(12);
  });

  test("OCR: local by default, at most 30 pictures a note unless OCR_MAX_PICTURES says otherwise; off turns it off", () => {
    expect(loadConfig({}).ocr).toEqual({ maxPictures: 30 });
    expect(loadConfig({ OCR: "local", OCR_MAX_PICTURES: "5" }).ocr).toEqual({ maxPictures: 5 });
    expect(loadConfig({ OCR: "off" }).ocr).toBeUndefined();
  });

  test("UPLOADS_PENDING_MAX_MB: 1 GiB of uploads waiting for their tasks a user, unless set", () => {
    expect(loadConfig({}).imports.pendingUploadsMaxBytes).toBe(1024 * 1024 * 1024);
    expect(loadConfig({ UPLOADS_PENDING_MAX_MB: "1" }).imports.pendingUploadsMaxBytes).toBe(1024 * 1024);
  });

  test("DOCUMENT_MAX_MB: documents of up to 100 MiB, unless set", () => {
    expect(loadConfig({}).imports.documentMaxBytes).toBe(100 * 1024 * 1024);
    expect(loadConfig({ DOCUMENT_MAX_MB: "3" }).imports.documentMaxBytes).toBe(3 * 1024 * 1024);
  });

  test("speech-to-text is off without STT_BASE_URL, and takes the contract's limits with it", () => {
    expect(loadConfig({}).stt).toBeUndefined();
    expect(loadConfig({ STT_BASE_URL: "https://api.groq.com/openai/v1", STT_MODEL: "whisper-large-v3-turbo", STT_API_KEY: "gsk_x", DATA_DIR: "/tmp/d" }).stt).toEqual({
      baseURL: "https://api.groq.com/openai/v1",
      apiKey: "gsk_x",
      model: "whisper-large-v3-turbo",
      language: undefined,
      maxSeconds: 180 * 60,
      chunkSeconds: 600,
      maxBytes: 24 * 1024 * 1024,
      mediaDir: "/tmp/d/media",
    });
  });

  test("IMPORT_RESOLVE pins host names to addresses, a * for every other name", async () => {
    const { resolveOverrides } = loadConfig({ IMPORT_RESOLVE: "MP.weixin.qq.com=10.0.0.5, *=::1" }).imports;
    expect([...resolveOverrides!]).toEqual([["mp.weixin.qq.com", "10.0.0.5"], ["*", "::1"]]);
    const resolve = resolverWith(resolveOverrides!);
    expect(await resolve("mp.weixin.qq.com")).toEqual([{ address: "10.0.0.5", family: 4 }]);
    expect(await resolve("mmbiz.qpic.cn")).toEqual([{ address: "::1", family: 6 }]);
    expect(loadConfig({}).imports.resolveOverrides?.size).toBe(0);
  });

  test("the process exits with that line and status 2", () => {
    const result = Bun.spawnSync([process.execPath, "src/main.ts"], { env: { ...process.env, PORT: "nope" }, cwd: path.resolve(import.meta.dir, "..") });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.toString().trim()).toBe("Invalid configuration: PORT must be a port number from 0 to 65535");
  });

  test("WEBHOOK_RETRY_DELAYS: the contract's default, units from ms to days, and one clear line for a bad part", () => {
    expect(loadConfig({}).webhooks.retryDelaysMs).toEqual([10_000, 60_000, 600_000, 3_600_000, 21_600_000, 43_200_000]);
    expect(loadConfig({ WEBHOOK_RETRY_DELAYS: "100ms, 2s,1d" }).webhooks.retryDelaysMs).toEqual([100, 2_000, 86_400_000]);
    for (const bad of ["10", "1w", "10s,,1m", "-1s"]) {
      expect(() => loadConfig({ WEBHOOK_RETRY_DELAYS: bad })).toThrow(/^Invalid configuration: WEBHOOK_RETRY_DELAYS has "[^"]*", which is not a delay like 30s/);
    }
  });
});
