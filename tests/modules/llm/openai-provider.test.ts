// The OpenAI-compatible provider's client driven against the loopback stand-in: its retries, the
// refusal table read from each server's real answer, and what it counts as usage.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { findRefusal, type RefusedFeature } from "../../../src/modules/llm/providers/openai-refusals";
import { createOpenAiClient, OpenAiRequestError, type ChatRequest, type OpenAiSettings } from "../../../src/modules/llm/providers/openai";
import { REFUSALS, startFakeOpenAi, type FakeOpenAi, type RefusalName } from "../../support/fake-openai";

let fake: FakeOpenAi;
beforeAll(async () => {
  fake = await startFakeOpenAi();
});
afterAll(() => fake.stop());

const settingsFor = (server: FakeOpenAi, extra: Partial<OpenAiSettings> = {}): OpenAiSettings => ({
  baseURL: server.url,
  model: "test-model",
  timeoutMs: 10_000,
  contextTokens: 8192,
  ...extra,
});

const messages = [{ role: "user" as const, content: "Reply in json: <note_text_ab>\nAbout [[Kyoto]].\n</note_text_ab>" }];
const REQUESTS: Record<RefusedFeature, ChatRequest> = {
  tools: {
    messages,
    tools: [{ type: "function", function: { name: "record", parameters: { type: "object", properties: {} } } }],
    tool_choice: { type: "function", function: { name: "record" } },
  },
  json_schema: { messages, response_format: { type: "json_schema", json_schema: { name: "record", schema: { type: "object" } } } },
  json_object: { messages, response_format: { type: "json_object" } },
};

async function failureOf(promise: Promise<unknown>): Promise<OpenAiRequestError> {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(OpenAiRequestError);
  return error as OpenAiRequestError;
}

describe("retries", () => {
  test("a 429 or 503 is asked again until it is answered", async () => {
    const before = fake.calls;
    fake.failNext(1, "rate_limited", "0");
    fake.failNext(1, "server_error", "0");
    const answer = await createOpenAiClient(settingsFor(fake, { maxRetries: 2 })).chat({ prompt: "hello" });
    expect(fake.calls - before).toBe(3);
    expect(answer.usage.llm_calls).toBe(1);
  });

  test("once the retries run out it is one error saying the server kept failing, not a refusal of the setup", async () => {
    const before = fake.calls;
    fake.failNext(3, "rate_limited", "0");
    const error = await failureOf(createOpenAiClient(settingsFor(fake, { maxRetries: 2 })).chat({ prompt: "hello" }));
    expect(fake.calls - before).toBe(3);
    expect(error.status).toBe(429);
    expect(error.stopsBuild).toBe(false);
    expect(error.message).toBe(`the server at OPENAI_BASE_URL (${fake.url}) kept failing (429): Rate limit reached for requests`);
  });

  test("a wrong key is asked once, and stops a build with the setting to check", async () => {
    const guarded = await startFakeOpenAi({ apiKey: "the-right-key" });
    try {
      const error = await failureOf(createOpenAiClient(settingsFor(guarded, { apiKey: "a-wrong-key" })).chat({ prompt: "hello" }));
      expect(guarded.calls).toBe(1);
      expect(error).toMatchObject({ status: 401, stopsBuild: true });
      expect(error.message).toContain("(check OPENAI_API_KEY)");
    } finally {
      await guarded.stop();
    }
  });
});

describe("the refusal table, on each server's real answer", () => {
  test.each(Object.keys(REFUSALS) as RefusalName[])("%s is known as a refusal of its form, and is not retried", async (name) => {
    const refusing = await startFakeOpenAi({ refuse: [name] });
    try {
      const { form, status } = REFUSALS[name];
      const feature = form as RefusedFeature;
      const client = createOpenAiClient(settingsFor(refusing));
      const error = await failureOf(client.complete(REQUESTS[feature], { isRefusal: (code, message) => findRefusal(feature, code, message) !== undefined }));
      expect(refusing.calls).toBe(1); // a 500 refusal (llama.cpp) too: a refusal is answered by changing the request
      expect(error.status).toBe(status);
      expect(findRefusal(feature, error.status!, error.serverMessage)).toBeDefined();
    } finally {
      await refusing.stop();
    }
  });

  test("an answer the table does not know is a failure, not a refusal", () => {
    expect(findRefusal("tools", 400, "temperature must be at most 2")).toBeUndefined();
    expect(findRefusal("json_schema", 500, "'response_format' of type 'json_schema' is not supported with this model.")).toBeUndefined();
    expect(findRefusal("json_object", 400, "does not support tools")).toBeUndefined();
  });
});

describe("usage", () => {
  test("is what the server counted, one call per answer", async () => {
    const before = { ...fake.usage };
    const answer = await createOpenAiClient(settingsFor(fake)).chat({ prompt: "How many tokens is this?" });
    expect(answer.usage).toEqual({
      llm_calls: 1,
      input_tokens: fake.usage.input_tokens - before.input_tokens,
      output_tokens: fake.usage.output_tokens - before.output_tokens,
    });
  });

  test("is estimated, and says so, when the server sends none; a reasoning block is not the answer", async () => {
    const quiet = await startFakeOpenAi({ omitUsage: true, thinkPrefix: "<think>Let me see.</think>\n" });
    try {
      const answer = await createOpenAiClient(settingsFor(quiet)).chat({ prompt: "Tell me about the temples of Kyoto and their gardens. ".repeat(20) });
      expect(answer.text).not.toContain("<think>");
      expect(answer.usage.estimated).toBe(true);
      expect(answer.usage.llm_calls).toBe(1);
      expect(answer.usage.output_tokens).toBeGreaterThan(0);
      // Within a third of what the server would have counted (body chars / 4).
      expect(answer.usage.input_tokens).toBeGreaterThan(quiet.usage.input_tokens * 0.67);
      expect(answer.usage.input_tokens).toBeLessThan(quiet.usage.input_tokens * 1.33);
    } finally {
      await quiet.stop();
    }
  });
});
