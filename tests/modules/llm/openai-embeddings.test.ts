import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { createEmbeddingsClient, EmbeddingsRequestError, fromBase64 } from "../../../src/modules/llm/providers/openai-embeddings";
import { startFakeEmbeddings } from "../../support/fake-embeddings";
import { until } from "../../support/until";

const server = startFakeEmbeddings({ dimensions: 32 });
afterAll(() => server.stop());
beforeEach(() => {
  server.requests.length = 0;
  Object.assign(server.mode, { rateLimited: 0, retryAfterSeconds: 1, failures: 0, status: null, delayMs: 0, base64: false, wrongDimensions: false, maxBatch: null, batchRefusal: "413" });
});

const client = (extra: Partial<Parameters<typeof createEmbeddingsClient>[0]> = {}) =>
  createEmbeddingsClient({ baseURL: server.url, model: "fake-embed", batchSize: 4, maxRetries: 3, ...extra });
const texts = (count: number) => Array.from({ length: count }, (_, index) => `passage number ${index} about buying a car`);

describe("embeddings client", () => {
  test("splits a batch by count, keeps order, asks for floats and sends no dimensions unless configured", async () => {
    const answer = await client().embed(texts(10));
    expect(answer.vectors).toHaveLength(10);
    expect(server.requests.map((request) => request.input.length)).toEqual([4, 4, 2]);
    expect(server.requests.every((request) => request.encoding_format === "float" && request.dimensions === undefined)).toBe(true);
    expect(Array.from(answer.vectors[7]!)).toEqual(Array.from(server.vectorOf(texts(10)[7]!, "fake-embed")));
  });

  test("puts the query prefix before a search query and the document prefix before a text to store", async () => {
    const nomic = client({ queryPrefix: "search_query: ", documentPrefix: "search_document: " });
    await nomic.embed(["buy a car"], { purpose: "query" });
    await nomic.embed(["Purchasing an automobile."]);
    await client().embed(["no prefix"], { purpose: "query" });
    expect(server.requests.map((request) => request.input)).toEqual([["search_query: buy a car"], ["search_document: Purchasing an automobile."], ["no prefix"]]);
  });

  test("splits a batch by tokens too", async () => {
    const long = Array.from({ length: 6 }, (_, index) => `${index} ${"word ".repeat(6000)}`);
    await client({ batchSize: 32 }).embed(long);
    expect(server.requests.length).toBeGreaterThan(1);
    expect(server.requests.every((request) => request.input.length < 6)).toBe(true);
  });

  test("sends dimensions when configured", async () => {
    const answer = await client({ dimensions: 16 }).embed(["a car"]);
    expect(server.requests[0]!.dimensions).toBe(16);
    expect(answer.vectors[0]).toHaveLength(16);
  });

  test("reads base64 answers", async () => {
    server.mode.base64 = true;
    const answer = await client().embed(["buy a car"]);
    expect(Array.from(answer.vectors[0]!)).toEqual(Array.from(server.vectorOf("buy a car", "fake-embed")));
    expect(fromBase64(Buffer.from(new Float32Array([1.5, -2]).buffer).toString("base64"))).toEqual(new Float32Array([1.5, -2]));
  });

  test("retries a 429 after the Retry-After the server asked for", async () => {
    server.mode.rateLimited = 1;
    server.mode.retryAfterSeconds = 1;
    await client().embed(["a car"]);
    expect(server.requests).toHaveLength(2);
    // The stand-in's own arrival times: the second request came after the wait the header asked for.
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(1000);
  });

  test("retries 5xx, then gives up with a message", async () => {
    server.mode.failures = 2;
    await client().embed(["a car"]);
    expect(server.requests).toHaveLength(3);
    server.mode.status = 503;
    const error = await client({ maxRetries: 1 }).embed(["a car"]).catch((caught) => caught);
    expect(error).toBeInstanceOf(EmbeddingsRequestError);
    expect(error.stopsBuild).toBe(false);
    expect(error.message).toContain("kept failing (503)");
  });

  test.each([
    [401, "EMBEDDINGS_API_KEY"],
    [403, "EMBEDDINGS_API_KEY"],
    [404, "EMBEDDINGS_MODEL"],
  ])("a %d stops at once with a message naming %s", async (status, variable) => {
    server.mode.status = status;
    const error = await client().embed(["a car"]).catch((caught) => caught);
    expect(error).toBeInstanceOf(EmbeddingsRequestError);
    expect(error.stopsBuild).toBe(true);
    expect(error.message).toContain(variable);
    expect(server.requests).toHaveLength(1);
  });

  test("vectors of the wrong length are refused, naming EMBEDDINGS_DIMENSIONS", async () => {
    server.mode.wrongDimensions = true;
    const error = await client({ dimensions: 16 }).embed(["a car"]).catch((caught) => caught);
    expect(error).toBeInstanceOf(EmbeddingsRequestError);
    expect(error.message).toContain("EMBEDDINGS_DIMENSIONS");
  });

  test.each(["413", "dashscope"] as const)("a server refusing the batch size (%s) is asked with smaller batches", async (refusal) => {
    server.mode.maxBatch = 3;
    server.mode.batchRefusal = refusal;
    const answer = await client({ batchSize: 10 }).embed(texts(10));
    expect(answer.vectors).toHaveLength(10);
    const answered = server.requests.filter((request) => request.input.length <= 3);
    expect(answered.reduce((sum, request) => sum + request.input.length, 0)).toBe(10);
  });

  test("a slow server is abandoned at the caller's signal: the call rejects with its reason, without waiting for the answer", async () => {
    server.mode.delayMs = 5000;
    const caller = new AbortController();
    const answer = client().embed(["a car"], { signal: caller.signal, maxRetries: 0 });
    // Aborted once the request is with the server, so an ignored signal gets its answer instead (after 5 s).
    await until(() => server.requests.length === 1, { what: "the request to reach the server" });
    const reason = new Error("the caller gave up");
    caller.abort(reason);
    expect(await answer.then(() => "answered", (caught: unknown) => caught)).toBe(reason);
  });

  test("a wait for Retry-After ends at the caller's signal", async () => {
    server.mode.rateLimited = 1;
    server.mode.retryAfterSeconds = 30;
    const caller = new AbortController();
    const answer = client().embed(["a car"], { signal: caller.signal });
    await until(() => server.requests.length === 1, { what: "the rate-limited request" });
    const reason = new Error("the caller gave up");
    caller.abort(reason);
    expect(await answer.then(() => "answered", (caught: unknown) => caught)).toBe(reason);
    expect(server.requests).toHaveLength(1);
  });

  test("no Authorization header without a key", async () => {
    await client().embed(["a car"]);
    expect(server.requests[0]!.authorization).toBeNull();
    await client({ apiKey: "sk-1" }).embed(["a car"]);
    expect(server.requests[1]!.authorization).toBe("Bearer sk-1");
  });
});
