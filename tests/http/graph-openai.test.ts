import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Api } from "../support/api";
import { defaultRespond, startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic";
import { startFakeOpenAi, type FakeOpenAi } from "../support/fake-openai";
import { serverForThisFile, startTestServer, type TestServer } from "../support/server";
import { awaitBuild } from "../support/await-build";

// A note whose text carries this word gets an unusable answer every time.
const UNANSWERABLE = "Unanswerable";

const fake = await startFakeOpenAi({
  latencyMs: 5,
  respond: (request) => (request.noteText?.includes(UNANSWERABLE) ? { content: "I would rather not." } : defaultRespond(request as never)),
});
afterAll(() => fake.stop());
const { api } = await serverForThisFile({ OPENAI_BASE_URL: fake.url, OPENAI_MODEL: "qwen3:8b" });

async function build(client: Api, counter: { calls: number }, body: Record<string, unknown> = {}) {
  const before = counter.calls;
  const started = await client.post("/api/knowledge-graph/build", body);
  expect(started.status).toBe(202);
  const { status } = await awaitBuild(client);
  return { status, calls: counter.calls - before };
}

const note = (i: number, extra = "") => ({ title: `Trip ${i}`, content: `Visited [[Place ${i}]] with [[Guide ${i % 3}]] and Captain Nemo.${extra}`, tags: ["travel"] });

/** The graph by label, ids replaced by what they point at: comparable across servers. */
async function graphShape(client: Api) {
  const graph = (await client.get("/api/knowledge-graph?limit=5000")).body;
  const notes = (await client.get("/api/notes?size=100")).body.items as Array<{ id: number; title: string }>;
  const title = (id: number) => notes.find((item) => item.id === id)?.title;
  const labelOf = new Map<number, string>(graph.nodes.map((node: any) => [node.id, node.label]));
  return {
    nodes: graph.nodes
      .map((node: any) => ({ label: node.label, type: node.type, description: node.description, weight: node.weight, degree: node.degree, aliases: node.aliases, notes: node.note_ids.map(title).sort() }))
      .sort((a: any, b: any) => a.label.localeCompare(b.label)),
    edges: graph.edges
      .map((edge: any) => ({ source: labelOf.get(edge.source), target: labelOf.get(edge.target), label: edge.label, weight: edge.weight, notes: edge.note_ids.map(title).sort() }))
      .sort((a: any, b: any) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    stats: { nodes: graph.stats.nodes, edges: graph.stats.edges },
  };
}

describe("the openai extractor through the REST surface", () => {
  test("full and incremental builds: one call per new or changed note, none for unchanged ones; status, records and dry runs name it", async () => {
    const { api: user } = await api.newUser("openai");
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await user.post("/api/notes", note(i))).body.id);

    const idle = (await user.get("/api/knowledge-graph/status")).body;
    expect(idle).toMatchObject({ status: "idle", extractor: "openai", model: "qwen3:8b", structured_output: "tools" });

    const before = fake.calls;
    const dry = (await user.post("/api/knowledge-graph/build", { dry_run: true, mode: "full" })).body;
    expect(dry).toMatchObject({ mode: "full", extractor: "openai", model: "qwen3:8b", notes_to_extract: 5, estimated_llm_calls: 5 });
    expect(fake.calls).toBe(before);

    const usageBefore = { ...fake.usage };
    const full = await build(user, fake, { mode: "full" });
    expect(full.calls).toBe(5);
    expect(full.status).toMatchObject({ status: "completed", extractor: "openai", model: "qwen3:8b", structured_output: "tools", failed_notes: [] });
    expect(full.status.usage).toEqual({
      llm_calls: 5,
      input_tokens: fake.usage.input_tokens - usageBefore.input_tokens,
      output_tokens: fake.usage.output_tokens - usageBefore.output_tokens,
      estimated: false,
    });
    // The dry run's estimate is from the real prompts: within a third of what the server counted.
    expect(dry.estimated_input_tokens).toBeGreaterThan(full.status.usage.input_tokens * 0.67);
    expect(dry.estimated_input_tokens).toBeLessThan(full.status.usage.input_tokens * 1.33);
    const labels = (await user.get("/api/knowledge-graph")).body.nodes.map((node: any) => node.label);
    expect(labels).toEqual(expect.arrayContaining(["Place 0", "Place 4", "Guide 0", "Captain Nemo"]));

    expect((await build(user, fake)).calls).toBe(0);
    await user.put(`/api/notes/${ids[1]}`, note(1, " Then [[Harbour]]."));
    await user.post("/api/notes", note(9));
    const incremental = await build(user, fake);
    expect(incremental.calls).toBe(2);
    expect((await user.get("/api/knowledge-graph")).body.nodes.map((node: any) => node.label)).toEqual(expect.arrayContaining(["Harbour", "Place 9"]));

    const record = (await user.get(`/api/knowledge-graph/builds/${incremental.status.build_id}`)).body;
    expect(record).toMatchObject({ extractor: "openai", model: "qwen3:8b", usage: { llm_calls: 2 } });
    expect(record.diff.added.map((entry: any) => entry.label).sort()).toEqual(["Harbour", "Place 9"]);

    const capped = await build(user, fake, { mode: "full", max_llm_calls: 2 });
    expect(capped.calls).toBe(2);
    expect(capped.status).toMatchObject({ budget_exhausted: true, usage: { llm_calls: 2 } });
  });

  test("a 429 with Retry-After is waited out and not counted; a note answered unusably twice is that note's failure", async () => {
    const { api: user } = await api.newUser("openai-retry");
    await user.post("/api/notes", note(1));
    const bad = (await user.post("/api/notes", { title: "Odd", content: `${UNANSWERABLE} text about [[Nothing]].`, tags: [] })).body.id;
    fake.failNext(1, "rate_limited", "1");
    const { calls, status } = await build(user, fake);
    // 1 refused + 1 answered for the good note, 2 answered for the bad one.
    expect(calls).toBe(4);
    expect(status).toMatchObject({ status: "completed", usage: { llm_calls: 3 } });
    expect(status.failed_notes).toEqual([{ note_id: bad, error: "the model's answer did not match the schema: the answer was not a JSON object" }]);
  });
});

describe("a server that refuses tools, leaves usage out and thinks aloud (Ollama with a small reasoning model)", () => {
  let ollama: FakeOpenAi;
  let ollamaServer: TestServer;
  beforeAll(async () => {
    ollama = await startFakeOpenAi({ refuse: ["ollama_tools"], omitUsage: true, thinkPrefix: "<think>\nLet me find the concepts.\n</think>\n" });
    ollamaServer = await startTestServer({ OPENAI_BASE_URL: ollama.url, OPENAI_MODEL: "llama3:8b", OPENAI_CONTEXT_TOKENS: "4096" });
  });
  afterAll(async () => {
    await ollamaServer.stop();
    await ollama.stop();
  });

  test("steps down to json_schema once, says so in the status, and marks the usage as estimated", async () => {
    const { api: user } = await new Api(ollamaServer.url).newUser("ollama");
    for (let i = 0; i < 4; i++) await user.post("/api/notes", note(i));
    const { calls, status } = await build(user, ollama);
    // Concurrent notes may each meet the refusal before the first step-down is remembered.
    expect(calls).toBeGreaterThanOrEqual(5);
    expect(calls).toBeLessThanOrEqual(8);
    expect(ollama.answered).toBe(4);
    expect(status).toMatchObject({ status: "completed", extractor: "openai", model: "llama3:8b", structured_output: "json_schema", failed_notes: [] });
    expect(status.usage.llm_calls).toBe(4);
    expect(status.usage.estimated).toBe(true);
    expect(status.usage.input_tokens).toBeGreaterThan(0);
    expect((await user.get("/api/knowledge-graph")).body.nodes.map((node: any) => node.label)).toEqual(expect.arrayContaining(["Place 3", "Captain Nemo"]));

    // Remembered: the next build starts at json_schema.
    await user.post("/api/notes", note(5));
    const next = await build(user, ollama);
    expect(next.calls).toBe(1);
    expect(ollama.requests.at(-1)!.form).toBe("json_schema");
    const { api: newcomer } = await new Api(ollamaServer.url).newUser("ollama-idle");
    expect((await newcomer.get("/api/knowledge-graph/status")).body).toMatchObject({ status: "idle", structured_output: "json_schema" });
  });
});

describe("a wrong key", () => {
  test("stops the build at once with one line naming OPENAI_API_KEY", async () => {
    const guarded = await startFakeOpenAi({ apiKey: "the-right-key" });
    const guardedServer = await startTestServer({ OPENAI_BASE_URL: guarded.url, OPENAI_MODEL: "deepseek-v4-flash", OPENAI_API_KEY: "a-wrong-key", GRAPH_LLM_CONCURRENCY: "1" });
    try {
      const { api: user } = await new Api(guardedServer.url).newUser("wrong-key");
      for (let i = 0; i < 3; i++) await user.post("/api/notes", note(i));
      const { calls, status } = await build(user, guarded);
      expect(calls).toBe(1);
      expect(status.status).toBe("failed");
      expect(status.error).toMatch(/rejected the request \(401\): Incorrect API key provided.*\(check OPENAI_API_KEY\)$/);
      expect(status.error).not.toContain("\n");
    } finally {
      await guardedServer.stop();
      await guarded.stop();
    }
  });
});

describe("a model slower than OPENAI_TIMEOUT_MS", () => {
  test("fails the note with a message naming the setting, and the build completes", async () => {
    const slow = await startFakeOpenAi({ latencyMs: 1_500 });
    const slowServer = await startTestServer({ OPENAI_BASE_URL: slow.url, OPENAI_MODEL: "qwen3:32b", OPENAI_TIMEOUT_MS: "1000" });
    try {
      const { api: user } = await new Api(slowServer.url).newUser("slow");
      const id = (await user.post("/api/notes", note(1))).body.id;
      const { calls, status } = await build(user, slow);
      expect(calls).toBe(1);
      expect(status).toMatchObject({ status: "completed", usage: { llm_calls: 0 } });
      expect(status.failed_notes).toEqual([
        { note_id: id, error: `the server at OPENAI_BASE_URL (${slow.url}) did not answer within 1 s (OPENAI_TIMEOUT_MS); a slow local model may need a longer timeout` },
      ]);
    } finally {
      await slowServer.stop();
      await slow.stop();
    }
  });
});

describe("the same answers through Anthropic's Messages API", () => {
  let anthropic: FakeAnthropic;
  let anthropicServer: TestServer;
  let openAiServer: TestServer;
  beforeAll(async () => {
    anthropic = await startFakeAnthropic();
    // One call at a time on both sides: an answer depends on the concepts found before it (as a real
    // model's does), so the two builds must take the notes in the same order to be comparable.
    // A base URL that is not Anthropic's, as for DeepSeek's, Kimi's, DashScope's or Ollama's Messages endpoints.
    anthropicServer = await startTestServer({ ANTHROPIC_API_KEY: "sk-other", ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_MODEL: "deepseek-v4-flash", GRAPH_LLM_CONCURRENCY: "1" });
    openAiServer = await startTestServer({ OPENAI_BASE_URL: fake.url, OPENAI_MODEL: "qwen3:8b", GRAPH_LLM_CONCURRENCY: "1" });
  });
  afterAll(async () => {
    await anthropicServer.stop();
    await openAiServer.stop();
    await anthropic.stop();
  });

  test("build the graph identical in shape to the openai path's", async () => {
    const viaAnthropic = (await new Api(anthropicServer.url).newUser("shape")).api;
    const viaOpenAi = (await new Api(openAiServer.url).newUser("shape")).api;
    for (const client of [viaAnthropic, viaOpenAi]) {
      for (let i = 0; i < 6; i++) await client.post("/api/notes", note(i, i % 2 ? " Later [[Harbour]] with Captain Nemo." : ""));
    }
    expect((await build(viaAnthropic, anthropic, { mode: "full" })).calls).toBe(6);
    expect((await build(viaOpenAi, fake, { mode: "full" })).calls).toBe(6);
    const shape = await graphShape(viaOpenAi);
    expect(shape.nodes.length).toBeGreaterThan(8);
    expect(shape).toEqual(await graphShape(viaAnthropic));
  });

  test("the anthropic extractor sends nothing that only Anthropic's own server accepts", async () => {
    expect(anthropic.requests.length).toBeGreaterThan(0);
    for (const request of anthropic.requests) {
      // The fields DeepSeek, Kimi, DashScope and Ollama document for their Messages endpoints.
      expect(Object.keys(request.body).sort()).toEqual(["max_tokens", "messages", "model", "system", "tool_choice", "tools"]);
      expect(typeof request.body.system).toBe("string");
      expect(Object.keys(request.body.tool_choice!).sort()).toEqual(["disable_parallel_tool_use", "name", "type"]);
      for (const tool of request.body.tools!) expect(Object.keys(tool).sort()).toEqual(["description", "input_schema", "name"]);
      for (const turn of request.body.messages) {
        const blocks = typeof turn.content === "string" ? [] : turn.content;
        for (const block of blocks) expect(["text", "tool_use", "tool_result"]).toContain(block.type);
        for (const block of blocks) expect(block).not.toHaveProperty("cache_control");
      }
      expect(request.headers["anthropic-beta"]).toBeUndefined();
      expect(request.headers["anthropic-version"]).toBe("2023-06-01");
    }
  });
});
