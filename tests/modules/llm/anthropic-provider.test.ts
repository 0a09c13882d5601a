// The Anthropic provider's client (the real SDK, with its own retries) driven against the loopback
// stand-in: what it retries, the one line an error becomes, the headers it sends and the usage it reads.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AnthropicRequestError, createAnthropicClient, toAnthropicRequestError } from "../../../src/modules/llm/providers/anthropic";
import { addUsage, noUsage } from "../../../src/modules/llm/usage";
import { startFakeAnthropic, type FakeAnthropic } from "../../support/fake-anthropic";

let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(() => fake.stop());

const clientFor = (server: FakeAnthropic, apiKey = "test-key", maxRetries = 2) =>
  createAnthropicClient({ apiKey, baseURL: server.url, maxRetries, timeoutMs: 10_000 });

const ask = (client: ReturnType<typeof createAnthropicClient>) =>
  client.messages.create({ model: "claude-haiku-4-5", max_tokens: 64, messages: [{ role: "user", content: "Tags: kyoto, temples" }] });

async function failureOf(promise: Promise<unknown>): Promise<AnthropicRequestError> {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  return toAnthropicRequestError(error, noUsage());
}

describe("retries", () => {
  test.each(["overloaded", "rate_limited", "server_error"] as const)("a %s answer is asked again by the SDK until it is answered", async (kind) => {
    fake.reset();
    fake.failNext(2, kind);
    const message = await ask(clientFor(fake));
    expect(fake.calls).toBe(3);
    expect(message.content.length).toBeGreaterThan(0);
  });

  test("once the retries run out it is one line saying the API kept failing, and no build stops for it", async () => {
    fake.reset();
    fake.failNext(3, "overloaded");
    const error = await failureOf(ask(clientFor(fake)));
    expect(fake.calls).toBe(3);
    expect(error).toMatchObject({ status: 529, stopsBuild: false, message: "the Anthropic API kept failing (529 overloaded_error): Overloaded" });
  });

  test("a wrong key is asked once, and stops a build with the setting to check", async () => {
    const guarded = await startFakeAnthropic({ apiKey: "the-right-key" });
    try {
      const error = await failureOf(ask(clientFor(guarded, "a-wrong-key")));
      expect(guarded.calls).toBe(1);
      expect(error).toMatchObject({ status: 401, stopsBuild: true });
      expect(error.message).toBe("the Anthropic API rejected the request (401 authentication_error): invalid x-api-key (check ANTHROPIC_API_KEY)");
    } finally {
      await guarded.stop();
    }
  });

  test("a server that cannot be reached is a transient failure naming the API", async () => {
    const gone = await startFakeAnthropic();
    await gone.stop();
    const error = await failureOf(ask(clientFor(gone, "test-key", 0)));
    expect(error.stopsBuild).toBe(false);
    expect(error.message).toStartWith("could not reach the Anthropic API: ");
  });
});

describe("what is sent and counted", () => {
  test("a server other than Anthropic's is sent the API version every compatible server documents", async () => {
    fake.reset();
    await ask(clientFor(fake));
    expect(fake.requests[0]!.headers["anthropic-version"]).toBe("2023-06-01");
  });

  test("the usage is the server's count, and adds up over calls", async () => {
    fake.reset();
    const total = noUsage();
    for (let i = 0; i < 2; i++) {
      const { usage } = await ask(clientFor(fake));
      addUsage(total, { llm_calls: 1, input_tokens: usage.input_tokens, output_tokens: usage.output_tokens });
    }
    expect(total).toEqual({ llm_calls: 2, ...fake.usage });
    addUsage(total, { llm_calls: 1, input_tokens: 1, output_tokens: 1, estimated: true });
    expect(total.estimated).toBe(true);
  });
});
