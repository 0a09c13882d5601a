import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { noteText, type NoteExtraction, type NoteForExtraction } from "../../../../src/modules/graph/extraction";
import { createAnthropicExtractor } from "../../../../src/modules/graph/extractors/anthropic";
import { ExtractionFailedError } from "../../../../src/modules/graph/extractors/llm/errors";
import { knowledgeGraphJsonSchema, TOOL_NAME } from "../../../../src/modules/graph/extractors/llm/schema";
import { createOpenAiExtractor, OpenAiRequestError } from "../../../../src/modules/graph/extractors/openai";
import { parseJsonLoosely, stripThinking } from "../../../../src/modules/llm/answer-text";
import { estimateTextTokens, OPENAI_COMPATIBLE_TOKENS } from "../../../../src/modules/llm/estimate-tokens";
import { createOpenAiClient, serverQuirks, type OpenAiSettings } from "../../../../src/modules/llm/providers/openai";
import { findRefusal, KNOWN_REFUSALS } from "../../../../src/modules/llm/providers/openai-refusals";
import { rememberedStep } from "../../../../src/modules/llm/providers/openai-structured";
import { defaultRespond, startFakeAnthropic } from "../../../support/fake-anthropic";
import { REFUSALS, startFakeOpenAi, type FakeOpenAi, type FakeOpenAiOptions, type RefusalName } from "../../../support/fake-openai";

const note: NoteForExtraction = {
  id: 7,
  title: "Ada Lovelace and the Analytical Engine",
  content:
    "Ada Lovelace wrote the first published program for Charles Babbage's machine.\n\n" +
    "Her notes describe computing [[Bernoulli numbers]] step by step.\n\nTags: history, computing",
  tags: ["history"],
};

const started: FakeOpenAi[] = [];
let fake: FakeOpenAi;

async function server(options: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  const created = await startFakeOpenAi(options);
  started.push(created);
  return created;
}

beforeAll(async () => {
  fake = await server();
});
afterEach(() => fake.reset());
afterAll(async () => {
  await Promise.all(started.map((item) => item.stop()));
});

function settings(on: FakeOpenAi, overrides: Partial<OpenAiSettings> = {}): OpenAiSettings {
  return { baseURL: on.url, model: "qwen3:8b", timeoutMs: 10_000, contextTokens: 8192, ...overrides };
}

const names = (result: NoteExtraction) => result.concepts.map((concept) => concept.name);
const failure = (promise: Promise<unknown>) => promise.then(() => null, (caught: unknown) => caught);

describe("one note, one call", () => {
  test("a forced tool call: one request, named tool, the shared schema as its parameters, no key header without a key", async () => {
    const result = await createOpenAiExtractor(settings(fake)).extract(note, { existingConcepts: [] });
    expect(fake.calls).toBe(1);
    expect(result.usage).toEqual({ llm_calls: 1, input_tokens: fake.usage.input_tokens, output_tokens: fake.usage.output_tokens });
    expect(names(result)).toEqual(expect.arrayContaining(["Ada Lovelace", "Analytical Engine", "Charles Babbage", "Bernoulli numbers", "history"]));

    const [request] = fake.requests;
    expect(request!.form).toBe("tools");
    expect(request!.body.model).toBe("qwen3:8b");
    expect(request!.body.tool_choice).toEqual({ type: "function", function: { name: TOOL_NAME } });
    expect(request!.body.tools![0]!.function.parameters).toEqual(knowledgeGraphJsonSchema());
    expect(request!.noteText).toBe(noteText(note));
    expect(request!.headers.authorization).toBeUndefined();
    // Only DeepSeek's and DashScope's own hosts get their thinking switches.
    expect(request!.body).not.toHaveProperty("thinking");
    expect(request!.body).not.toHaveProperty("enable_thinking");
  });

  test("the same answers give the same extraction as the Anthropic extractor", async () => {
    const anthropic = await startFakeAnthropic();
    try {
      const fromClaude = await createAnthropicExtractor({ apiKey: "k", baseURL: anthropic.url, model: "claude-haiku-4-5" }).extract(note, { existingConcepts: ["Charles Babbage"] });
      const fromOpenAi = await createOpenAiExtractor(settings(fake)).extract(note, { existingConcepts: ["Charles Babbage"] });
      expect({ ...fromOpenAi, usage: null }).toEqual({ ...fromClaude, usage: null });
    } finally {
      await anthropic.stop();
    }
  });

  test("a key is sent as a bearer token; a wrong one stops the build naming OPENAI_API_KEY, without retries", async () => {
    const guarded = await server({ apiKey: "right" });
    expect((await createOpenAiExtractor(settings(guarded, { apiKey: "right" })).extract(note, { existingConcepts: [] })).concepts.length).toBeGreaterThan(0);
    expect(guarded.requests[0]!.headers.authorization).toBe("Bearer right");
    const error = await failure(createOpenAiExtractor(settings(guarded, { apiKey: "wrong" })).extract(note, { existingConcepts: [] }));
    expect(error).toBeInstanceOf(OpenAiRequestError);
    expect((error as OpenAiRequestError).stopsBuild).toBe(true);
    expect((error as Error).message).toMatch(/^the server at OPENAI_BASE_URL \(.+\) rejected the request \(401\): Incorrect API key provided: .* \(check OPENAI_API_KEY\)$/);
    expect(guarded.calls).toBe(2);
  });

  test("an unknown model stops the build naming OPENAI_MODEL", async () => {
    const picky = await server({ models: ["llama3.1:8b"] });
    const error = (await failure(createOpenAiExtractor(settings(picky)).extract(note, { existingConcepts: [] }))) as OpenAiRequestError;
    expect(error.status).toBe(404);
    expect(error.stopsBuild).toBe(true);
    expect(error.message).toContain("(check OPENAI_MODEL and OPENAI_BASE_URL)");
  });
});

describe("structured-output step-down", () => {
  // What each refusal steps down to, from a server that starts refusing it.
  const cases: Array<[RefusalName[], string, number]> = [
    [["ollama_tools"], "json_schema", 2],
    [["ollama_native_tools"], "json_schema", 2],
    [["deepseek_thinking_tool_choice", "deepseek_json_schema"], "json_object", 3],
    [["dashscope_thinking_tool_choice"], "json_schema", 2],
    [["kimi_tool_choice"], "json_schema", 2],
    [["vllm_auto_tool_choice"], "json_schema", 2],
    [["llamacpp_jinja"], "json_schema", 2],
    [["openai_json_schema"], "tools", 1],
    [["ollama_tools", "openai_json_schema"], "json_object", 3],
    [["ollama_tools", "lmstudio_json_object"], "json_schema", 2],
  ];
  for (const [refusals, expected, requests] of cases) {
    test(`${refusals.join(" + ")} → ${expected}, remembered for the next note`, async () => {
      const refusing = await server({ refuse: refusals });
      const extractor = createOpenAiExtractor(settings(refusing));
      const result = await extractor.extract(note, { existingConcepts: [] });
      expect(names(result)).toContain("Ada Lovelace");
      expect(refusing.calls).toBe(requests);
      expect(refusing.requests.at(-1)!.form).toBe(expected as never);
      // Refused requests are not answered calls.
      expect(result.usage.llm_calls).toBe(1);
      expect(extractor.structuredOutput!()).toBe(expected as never);
      expect(rememberedStep(refusing.url, "qwen3:8b")).toBe(expected as never);

      refusing.reset();
      await createOpenAiExtractor(settings(refusing)).extract(note, { existingConcepts: [] });
      expect(refusing.calls).toBe(1);
      expect(refusing.requests[0]!.form).toBe(expected as never);
    });
  }

  test("every form refused: plain text, the schema in the prompt, read tolerantly", async () => {
    const stubborn = await server({
      respond: (request) => {
        if (request.form !== "text") return { status: 400, body: { error: { message: `${request.form === "tools" ? "tools" : "response_format"} is not supported`, type: "invalid_request_error" } } };
        const { input } = defaultRespond(request as never) as { input: unknown };
        return { content: `Here is the graph:\n\`\`\`json\n${JSON.stringify(input)}\n\`\`\`\nHope this helps.` };
      },
    });
    const extractor = createOpenAiExtractor(settings(stubborn));
    const result = await extractor.extract(note, { existingConcepts: [] });
    expect(stubborn.requests.map((request) => request.form)).toEqual(["tools", "json_schema", "json_object", "text"]);
    expect(stubborn.requests[2]!.system).toContain('"concepts"');
    expect(names(result)).toContain("Bernoulli numbers");
    expect(extractor.structuredOutput!()).toBe("text");
  });

  test("json_object prompts carry the word json and the schema (DashScope refuses it otherwise)", async () => {
    const dashscope = await server({ refuse: ["ollama_tools", "openai_json_schema"] });
    await createOpenAiExtractor(settings(dashscope)).extract(note, { existingConcepts: [] });
    const last = dashscope.requests.at(-1)!;
    expect(last.form).toBe("json_object");
    expect(last.system).toMatch(/JSON schema/);
  });

  test("Ollama ignoring tool_choice and answering in text is read from the text", async () => {
    const ollama = await server({ ignoreToolChoice: true });
    const result = await createOpenAiExtractor(settings(ollama)).extract(note, { existingConcepts: [] });
    expect(ollama.calls).toBe(1);
    expect(names(result)).toContain("Ada Lovelace");
  });

  test("any other 400 is the note's failure, not a step down", async () => {
    const full = await server({ respond: () => ({ status: 400, body: { error: { message: "This model's maximum context length is 36000 tokens. However, your request has 36389 input tokens.", type: "BadRequestError" } } }) });
    const error = (await failure(createOpenAiExtractor(settings(full)).extract(note, { existingConcepts: [] }))) as OpenAiRequestError;
    expect(error).toBeInstanceOf(OpenAiRequestError);
    expect(error.stopsBuild).toBe(false);
    expect(error.message).toContain("maximum context length");
    expect(full.calls).toBe(1);
  });
});

describe("answers that need a second look", () => {
  test("a <think> block before the JSON is stripped", async () => {
    const thinker = await server({ refuse: ["ollama_tools"], thinkPrefix: "<think>\nThe user wants {concepts}. Let me think.\n</think>\n\n" });
    const result = await createOpenAiExtractor(settings(thinker)).extract(note, { existingConcepts: [] });
    expect(thinker.answered).toBe(1);
    expect(names(result)).toContain("Charles Babbage");
  });

  test("an invalid answer is asked for again once with the validation error, both calls counted", async () => {
    let asked = 0;
    const flaky = await server({ respond: (request) => (++asked === 1 ? { input: { concepts: [{ name: 42 }], relations: "none" } } : defaultRespond(request as never)) });
    const result = await createOpenAiExtractor(settings(flaky)).extract(note, { existingConcepts: [] });
    expect(flaky.calls).toBe(2);
    expect(result.usage.llm_calls).toBe(2);
    expect(flaky.requests[1]!.userText).toMatch(/previous answer to this request was unusable \(concepts\.0\.name: .+\)/);
    expect(names(result)).toContain("Ada Lovelace");
  });

  test("two empty answers fail the note with ExtractionFailedError, both calls counted", async () => {
    const empty = await server({ respond: () => ({ content: "" }) });
    const error = (await failure(createOpenAiExtractor(settings(empty)).extract(note, { existingConcepts: [] }))) as ExtractionFailedError;
    expect(error).toBeInstanceOf(ExtractionFailedError);
    expect(error.message).toBe("the model's answer did not match the schema: the answer was empty");
    expect(error.usage.llm_calls).toBe(2);
    expect(empty.calls).toBe(2);
  });

  test("usage left out is estimated from the text and marked so", async () => {
    const quiet = await server({ omitUsage: true });
    const result = await createOpenAiExtractor(settings(quiet)).extract(note, { existingConcepts: [] });
    expect(result.usage.estimated).toBe(true);
    expect(result.usage.llm_calls).toBe(1);
    // Within a third of what the server would have counted (body chars / 4).
    expect(result.usage.input_tokens).toBeGreaterThan(quiet.usage.input_tokens * 0.67);
    expect(result.usage.input_tokens).toBeLessThan(quiet.usage.input_tokens * 1.33);
    expect(result.usage.output_tokens).toBeGreaterThan(0);
  });
});

describe("transport", () => {
  test("429 is retried after the Retry-After the server asked for, and not counted", async () => {
    fake.failNext(1, "rate_limited", "1");
    const result = await createOpenAiExtractor(settings(fake)).extract(note, { existingConcepts: [] });
    expect(fake.calls).toBe(2);
    // The stand-in saw the retry come a second after the refusal, as its Retry-After asked (a lower bound: load only lengthens it).
    expect(fake.arrivals[1]! - fake.arrivals[0]!).toBeGreaterThanOrEqual(950);
    expect(result.usage.llm_calls).toBe(1);
  });

  test("5xx is retried; when the retries run out it is the note's failure, not the build's", async () => {
    fake.failNext(2, "server_error");
    expect((await createOpenAiExtractor(settings(fake)).extract(note, { existingConcepts: [] })).usage.llm_calls).toBe(1);
    expect(fake.calls).toBe(3);
    fake.reset();
    fake.failNext(3, "server_error");
    const error = (await failure(createOpenAiExtractor(settings(fake, { maxRetries: 2 })).extract(note, { existingConcepts: [] }))) as OpenAiRequestError;
    expect(error.status).toBe(503);
    expect(error.stopsBuild).toBe(false);
    expect(error.message).toContain("kept failing (503)");
  });

  test("an answer slower than OPENAI_TIMEOUT_MS fails with a message naming it, without retries", async () => {
    const slow = await server({ latencyMs: 1_500 });
    const error = (await failure(createOpenAiExtractor(settings(slow, { timeoutMs: 200 })).extract(note, { existingConcepts: [] }))) as OpenAiRequestError;
    expect(error).toBeInstanceOf(OpenAiRequestError);
    expect(error.message).toMatch(/did not answer within 0\.2 s \(OPENAI_TIMEOUT_MS\)/);
    expect(slow.calls).toBe(1);
  });
});

describe("the context bound", () => {
  test("a long note is cut into chunks whose requests stay inside OPENAI_CONTEXT_TOKENS", async () => {
    const paragraphs = Array.from({ length: 60 }, (_, index) => `## Part ${index}\n\nThe Quantum Lab ${index} studied [[Topic ${index}]] with great care and much patience over many long years.`);
    const long: NoteForExtraction = { id: 9, title: "Long", content: paragraphs.join("\n\n"), tags: [] };
    const extractor = createOpenAiExtractor(settings(fake, { contextTokens: 2048 }));
    const estimate = extractor.estimate!(long, []);
    const result = await extractor.extract(long, { existingConcepts: [] });
    expect(fake.calls).toBeGreaterThan(1);
    expect(estimate.llm_calls).toBe(fake.calls);
    for (const request of fake.requests) {
      const sent = estimateTextTokens(JSON.stringify(request.body), OPENAI_COMPATIBLE_TOKENS) + request.body.max_tokens!;
      expect(sent).toBeLessThanOrEqual(2048);
    }
    expect(names(result)).toEqual(expect.arrayContaining(["Topic 0", "Topic 59"]));
  });

  test("hundreds of existing Chinese concept names and a Chinese note still fit", async () => {
    const existing = Array.from({ length: 300 }, (_, index) => `知识图谱概念第${index}号`);
    const chinese: NoteForExtraction = { id: 10, title: "读书笔记", content: Array.from({ length: 40 }, (_, index) => `第${index}章：知识图谱概念第${index}号与机器学习的关系，写得很详细。`).join("\n\n"), tags: ["读书"] };
    await createOpenAiExtractor(settings(fake, { contextTokens: 2048 })).extract(chinese, { existingConcepts: existing });
    expect(fake.calls).toBeGreaterThan(1);
    for (const request of fake.requests) {
      expect(request.existingConcepts.length).toBeGreaterThan(0);
      expect(estimateTextTokens(JSON.stringify(request.body), OPENAI_COMPATIBLE_TOKENS) + request.body.max_tokens!).toBeLessThanOrEqual(2048);
    }
  });
});

describe("pieces", () => {
  test("thinking is stripped, whole or with only its closing tag", () => {
    expect(stripThinking("<think>a {b}</think>\n{\"x\":1}")).toBe('{"x":1}');
    expect(stripThinking("reasoning…</think>{\"x\":1}")).toBe('{"x":1}');
    expect(stripThinking("<think>cut off inside")).toBe("");
    expect(parseJsonLoosely("Sure! {\"a\": [1]} done")).toEqual({ ok: true, value: { a: [1] } });
    expect(parseJsonLoosely("   ")).toEqual({ ok: false, problem: "the answer was empty" });
  });

  test("every refusal the stand-in sends is in the table, found by its status and text", () => {
    for (const [name, refusal] of Object.entries(REFUSALS)) {
      const body = refusal.body as { error?: string | { message: string }; message?: string };
      const message = typeof body.error === "string" ? body.error : (body.error?.message ?? body.message ?? "");
      expect({ name, found: findRefusal(refusal.form as never, refusal.status, message)?.server !== undefined }).toEqual({ name, found: true });
    }
    expect(new Set(KNOWN_REFUSALS.map((refusal) => refusal.server))).toEqual(
      new Set(["Ollama", "DeepSeek", "Qwen (DashScope)", "Kimi", "vLLM", "llama.cpp", "OpenAI", "LM Studio", "any other"]),
    );
  });

  test("DeepSeek's host gets thinking disabled, DashScope's enable_thinking false, others nothing", () => {
    expect(serverQuirks("https://api.deepseek.com/v1")).toEqual({ thinking: { type: "disabled" } });
    expect(serverQuirks("https://api.deepseek.com")).toEqual({ thinking: { type: "disabled" } });
    expect(serverQuirks("https://dashscope-intl.aliyuncs.com/compatible-mode/v1")).toEqual({ enable_thinking: false });
    expect(serverQuirks("http://127.0.0.1:11434/v1")).toEqual({});
    expect(serverQuirks("https://api.moonshot.ai/v1")).toEqual({});
  });

  test("the plain chat call (for ask) returns the text without reasoning, and its usage", async () => {
    const chatty = await server({ respond: () => ({ content: "<think>hmm</think>Ada wrote the first program." }) });
    const answer = await createOpenAiClient(settings(chatty)).chat({ system: "Answer briefly.", prompt: "Who wrote the first program?" });
    expect(answer.text).toBe("Ada wrote the first program.");
    expect(answer.usage.llm_calls).toBe(1);
    expect(chatty.requests[0]!.form).toBe("text");
  });
});
