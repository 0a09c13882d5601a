import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTRPCClient, httpLink } from "@trpc/client";
import type { AppRouter } from "../../src/trpc/root";
import { Api, expectError } from "../support/api";
import { askStreamed } from "../support/ask-stream";
import { defaultRespond, startFakeAnthropic, type FakeAnthropic, type ParsedRequest } from "../support/fake-anthropic";
import { startFakeOpenAi, type FakeOpenAi, type ParsedOpenAiRequest } from "../support/fake-openai";
import { startTestServer, type TestServer } from "../support/server";
import { awaitBuild } from "../support/await-build";

const NOTES = [
  {
    title: "Thinking, Fast and Slow",
    content:
      "Daniel Kahneman splits thinking in two.\n\nSystem 1 is fast and automatic. System 2 is slow and deliberate.\n\nAnchoring: an arbitrary number shown first shifts the estimate people give. Loss aversion makes a loss hurt twice as much as a win.",
  },
  { title: "Sourdough", content: "Feed the sourdough starter the night before.\n\nBulk fermentation takes five hours at 24 °C. The dough is ready when it has grown by half." },
  { title: "大模型学习笔记", content: "大模型的核心是Transformer结构。\n\n最关键的是注意力机制：每个词都可以看到句子里的其他词。训练分两步：先预训练，再微调。" },
  { title: "Kyoto trip", content: "Walked up Fushimi Inari at dusk; almost nobody above the halfway point.\n\nThe matcha in Uji was bitter and grassy." },
];

async function seed(user: Api): Promise<Map<number, string>> {
  const contents = new Map<number, string>();
  for (const note of NOTES) {
    const created = await user.post("/api/notes", note);
    expect(created.status).toBe(201);
    contents.set(created.body.id, note.content);
  }
  expect((await user.post("/api/knowledge-graph/build", { mode: "full" })).status).toBe(202);
  expect((await awaitBuild(user)).status.status).toBe("completed");
  return contents;
}

function expectExactPassages(body: any, contents: Map<number, string>) {
  for (const passage of body.passages) {
    expect(contents.has(passage.note_id)).toBe(true);
    expect(contents.get(passage.note_id)!.slice(passage.start, passage.end)).toBe(passage.text);
    expect(passage.text.length).toBeLessThanOrEqual(1000);
  }
}

describe("with the local extractor (no LLM)", () => {
  let server: TestServer;
  let alice: Api;
  let bob: Api;
  let contents: Map<number, string>;
  beforeAll(async () => {
    server = await startTestServer();
    const api = new Api(server.url);
    alice = (await api.newUser("alice")).api;
    bob = (await api.newUser("bob")).api;
    contents = await seed(alice);
    await bob.post("/api/notes", { title: "Bob's anchoring", content: "Anchoring is what a ship does in a harbour." });
  });
  afterAll(() => server.stop());

  test("the passages answer, each exactly content.slice(start, end) of its note, and nothing else is said", async () => {
    const { status, body } = await alice.post("/api/ask", { question: "What is anchoring?" });
    expect(status).toBe(200);
    expect(body).toMatchObject({ question: "What is anchoring?", answer: null, answered_by: null, citations: [], usage: { llm_calls: 0, input_tokens: 0, output_tokens: 0 }, error: null });
    expect(body.passages.length).toBeGreaterThan(0);
    expect(body.passages[0].text).toContain("Anchoring");
    expectExactPassages(body, contents);
  });

  test("a Chinese question without spaces finds its passage and the concept it names", async () => {
    const { status, body } = await alice.post("/api/ask", { question: "注意力机制是怎么工作的？" });
    expect(status).toBe(200);
    expect(body.passages[0].text).toContain("注意力机制");
    expectExactPassages(body, contents);
    expect(body.concepts.map((concept: { label: string }) => concept.label)).toContain("注意力机制");
  });

  test("limit caps the passages, and one note gives at most two", async () => {
    const { body } = await alice.post("/api/ask", { question: "Kahneman System 1 System 2 anchoring loss aversion", limit: 20 });
    const perNote = new Map<number, number>();
    for (const passage of body.passages) perNote.set(passage.note_id, (perNote.get(passage.note_id) ?? 0) + 1);
    expect(Math.max(...perNote.values())).toBeLessThanOrEqual(2);
    expect((await alice.post("/api/ask", { question: "sourdough starter fermentation", limit: 1 })).body.passages).toHaveLength(1);
  });

  test("another user's notes never appear, and theirs not in mine", async () => {
    const mine = await alice.post("/api/ask", { question: "anchoring" });
    expect(mine.body.passages.every((passage: { title: string }) => passage.title !== "Bob's anchoring")).toBe(true);
    const theirs = await bob.post("/api/ask", { question: "anchoring Kahneman matcha sourdough" });
    expect(theirs.status).toBe(200);
    expect(theirs.body.passages.map((passage: { title: string }) => passage.title)).toEqual(["Bob's anchoring"]);
    expect(theirs.body.concepts).toEqual([]);
  });

  test("a hidden concept is not used", async () => {
    const named = await alice.post("/api/ask", { question: "Tell me about Fushimi Inari" });
    const concept = named.body.concepts.find((item: { label: string }) => /fushimi/i.test(item.label));
    expect(concept).toBeDefined();
    expect((await alice.request("PATCH", `/api/knowledge-graph/nodes/${concept.id}`, { json: { hidden: true } })).status).toBe(200);
    const after = await alice.post("/api/ask", { question: "Tell me about Fushimi Inari" });
    expect(after.body.concepts.map((item: { id: number }) => item.id)).not.toContain(concept.id);
    for (const passage of after.body.passages) expect(passage.concepts.map((item: { id: number }) => item.id)).not.toContain(concept.id);
  });

  test.each([
    ['"unbalanced quote'],
    ["NEAR(anchoring loss"],
    ["*"],
    ["anchoring* OR -loss AND NOT {title}: x"],
    ["a".repeat(500)],
    ["what\u0000is\u0007anchoring\u001b[31m?"],
    ["'); drop table notes; --"],
    ["😀🎉"],
    ["的 了 是"],
  ])("a hostile question is answered 200 or a clean 400, never a 5xx: %p", async (question) => {
    const response = await alice.post("/api/ask", { question });
    expect([200, 400]).toContain(response.status);
    if (response.status === 400) expect(response.body).toMatchObject({ code: "BAD_REQUEST" });
    else expectExactPassages(response.body, contents);
  });

  test("bad input is a 400 with the contract's body; no token is a 401", async () => {
    expectError(await alice.post("/api/ask", { question: "" }), 400, "BAD_REQUEST");
    expectError(await alice.post("/api/ask", { question: " \u0000\u0001 " }), 400, "BAD_REQUEST");
    expectError(await alice.post("/api/ask", { question: "x".repeat(501) }), 400, "BAD_REQUEST");
    expectError(await alice.post("/api/ask", { question: "anchoring", limit: 21 }), 400, "BAD_REQUEST");
    expectError(await alice.post("/api/ask", {}), 400, "BAD_REQUEST");
    expectError(await alice.withToken(undefined).post("/api/ask", { question: "anchoring" }), 401, "UNAUTHORIZED");
    const streamed = await askStreamed(server.url, "not-a-token", { question: "anchoring" });
    expect(streamed.status).toBe(401);
    const invalid = await askStreamed(server.url, alice.token!, { question: "" });
    expect(invalid.status).toBe(400);
    expect(JSON.parse(invalid.text)).toMatchObject({ code: "BAD_REQUEST", message: "Input validation failed" });
  });

  test("streamed without an LLM: the passages, then done with the whole response", async () => {
    const { status, contentType, events } = await askStreamed(server.url, alice.token!, { question: "What is anchoring?" });
    expect(status).toBe(200);
    expect(contentType).toStartWith("text/event-stream");
    expect(events.map((event) => event.event)).toEqual(["passages", "done"]);
    expect(events[1]!.data.passages).toEqual(events[0]!.data.passages);
    expect(events[1]!.data.answer).toBeNull();
  });

  test("the typed tRPC client asks as ask.ask", async () => {
    const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${server.url}/trpc`, headers: { authorization: `Bearer ${alice.token}` } })] });
    const result = await client.ask.ask.mutate({ question: "sourdough starter" });
    expect(result.passages[0]!.title).toBe("Sourdough");
    expect(result.answered_by).toBeNull();
  });
});

describe("with Anthropic answering", () => {
  let fake: FakeAnthropic;
  let server: TestServer;
  let alice: Api;
  let contents: Map<number, string>;
  beforeAll(async () => {
    fake = await startFakeAnthropic();
    server = await startTestServer({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_MODEL: "claude-haiku-4-5" });
    alice = (await new Api(server.url).newUser("asker")).api;
    contents = await seed(alice);
  });
  afterAll(async () => {
    await server.stop();
    await fake.stop();
  });

  function expectCitedAnswer(body: any) {
    expect(body.answered_by).toBe("anthropic");
    expect(body.error).toBeNull();
    expect(body.citations.length).toBeGreaterThan(0);
    for (const citation of body.citations) expect(contents.get(citation.note_id)!.slice(citation.start, citation.end)).toBe(citation.quote);
    const markers = [...body.answer.matchAll(/\[(\d+)\]/g)].map((match) => Number(match[1]));
    expect(markers.length).toBeGreaterThan(0);
    for (const n of markers) expect(n >= 1 && n <= body.citations.length).toBe(true);
    expect(new Set(markers).size).toBe(body.citations.length);
  }

  test("one call answers with citations that quote the notes exactly, marked [n]", async () => {
    const before = fake.calls;
    const { status, body } = await alice.post("/api/ask", { question: "What is anchoring and loss aversion?" });
    expect(status).toBe(200);
    expect(fake.calls - before).toBe(1);
    expectCitedAnswer(body);
    expectExactPassages(body, contents);
    expect(body.usage.llm_calls).toBe(1);
    expect(body.usage.input_tokens).toBeGreaterThan(0);
    const request = fake.requests.at(-1)!;
    expect(request.body.stream).toBeFalsy();
    expect(request.documents.length).toBeGreaterThan(0);
    expect(request.documents.every((document) => document.citations && document.blocks.length > 0)).toBe(true);
    expect(request.body.tools).toBeUndefined();
    // Added to the account's all-time totals, which GET /api/auth/me shows (graph builds and questions together).
    const totalsBefore = (await alice.get("/api/auth/me")).body.usage;
    await alice.post("/api/ask", { question: "sourdough starter" });
    const totalsAfter = (await alice.get("/api/auth/me")).body.usage;
    expect(totalsAfter.llm_calls).toBe(totalsBefore.llm_calls + 1);
    expect(totalsAfter.input_tokens).toBeGreaterThan(totalsBefore.input_tokens);
  });

  test("streamed: passages first, the answer in deltas, each citation once, and done equal to the pieces", async () => {
    const before = fake.calls;
    const { status, events } = await askStreamed(server.url, alice.token!, { question: "注意力机制是怎么工作的？" });
    expect(status).toBe(200);
    expect(fake.calls - before).toBe(1);
    expect(fake.requests.at(-1)!.body.stream).toBe(true);
    expect(events[0]!.event).toBe("passages");
    expect(events.at(-1)!.event).toBe("done");
    const done = events.at(-1)!.data;
    expectCitedAnswer(done);
    expect(events.filter((event) => event.event === "delta").map((event) => event.data.text).join("")).toBe(done.answer);
    const cited = events.filter((event) => event.event === "citation").map((event) => event.data);
    expect(cited.map((citation) => citation.n)).toEqual(done.citations.map((_: unknown, index: number) => index + 1));
    for (const citation of cited) expect(contents.get(citation.note_id)!.slice(citation.start, citation.end)).toBe(citation.quote);
  });

  test("when the LLM keeps failing the passages still come back, with error saying why", async () => {
    fake.failNext(5, "server_error");
    const { status, body } = await alice.post("/api/ask", { question: "sourdough starter" });
    fake.reset();
    expect(status).toBe(200);
    expect(body.answer).toBeNull();
    expect(body.error).toMatch(/Anthropic/);
    expect(body.passages.length).toBeGreaterThan(0);
    expectExactPassages(body, contents);
  });

  test("ASK_MAX_INPUT_TOKENS caps the passages sent; all of them still come back", async () => {
    const capped = await startTestServer({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, ASK_MAX_INPUT_TOKENS: "500" });
    try {
      const user = (await new Api(capped.url).newUser("capped")).api;
      for (let i = 0; i < 8; i++) await user.post("/api/notes", { title: `Starter ${i}`, content: `The sourdough starter, day ${i}: ${"it bubbled and rose and smelled of yoghurt. ".repeat(12)}` });
      const { body } = await user.post("/api/ask", { question: "How is the sourdough starter doing?" });
      expect(body.passages).toHaveLength(8);
      const sent = fake.requests.at(-1)!.documents;
      expect(sent.length).toBeGreaterThan(0);
      expect(sent.length).toBeLessThan(8);
      expect(body.answered_by).toBe("anthropic");
    } finally {
      await capped.stop();
    }
  });

  test("no passages, no call", async () => {
    const before = fake.calls;
    const { body } = await alice.post("/api/ask", { question: "zeppelin quaternion" });
    expect(body.passages).toEqual([]);
    expect(fake.calls).toBe(before);
    expect(body.usage.llm_calls).toBe(0);
  });
});

describe("with an OpenAI-compatible server answering", () => {
  let fake: FakeOpenAi;
  let server: TestServer;
  let alice: Api;
  let contents: Map<number, string>;
  // Questions get an answer quoting passage 1 (its first sentence, with its spaces doubled) and one
  // quote no note holds; graph builds get the extractor stand-in's usual answer.
  const respond = (request: ParsedOpenAiRequest) => {
    const first = /<passage 1: [^>]*>\n([\s\S]*?)\n<\/passage 1>/.exec(request.userText);
    if (!first) return defaultRespond(request as unknown as ParsedRequest);
    const sentence = first[1]!.split(/(?<=[.。])/)[0]!.trim().replace(/ /g, "  ");
    return { content: `The notes say so [1]. Bananas are blue [2].\n\nQUOTES\n[1] "${sentence}"\n[2] "Bananas are blue"` };
  };
  beforeAll(async () => {
    fake = await startFakeOpenAi({ respond });
    server = await startTestServer({ OPENAI_BASE_URL: fake.url, OPENAI_MODEL: "local-model", GRAPH_EXTRACTOR: "openai" });
    alice = (await new Api(server.url).newUser("quoter")).api;
    contents = await seed(alice);
  });
  afterAll(async () => {
    await server.stop();
    await fake.stop();
  });

  test("one call; only quotes found in a passage are kept, each exactly the note's text, and markers renumbered", async () => {
    const before = fake.calls;
    const { status, body } = await alice.post("/api/ask", { question: "What is anchoring?" });
    expect(status).toBe(200);
    expect(fake.calls - before).toBe(1);
    expect(body.answered_by).toBe("openai");
    expect(body.error).toBeNull();
    expect(body.answer).toBe("The notes say so [1]. Bananas are blue.");
    expect(body.citations).toHaveLength(1);
    const [citation] = body.citations;
    expect(contents.get(citation.note_id)!.slice(citation.start, citation.end)).toBe(citation.quote);
    expect(citation.note_id).toBe(body.passages[0].note_id);
    expect(body.usage.llm_calls).toBe(1);
  });

  test("streamed: passages, the answer, its citation, then done", async () => {
    const { events } = await askStreamed(server.url, alice.token!, { question: "注意力机制是怎么工作的？" });
    expect(events.map((event) => event.event)).toEqual(["passages", "delta", "citation", "done"]);
    const done = events.at(-1)!.data;
    expect(events[1]!.data.text).toBe(done.answer);
    expect(events[2]!.data).toMatchObject({ n: 1, ...done.citations[0] });
    expect(contents.get(done.citations[0].note_id)!.slice(done.citations[0].start, done.citations[0].end)).toBe(done.citations[0].quote);
  });

  test("a server that keeps failing leaves the passages and says why", async () => {
    fake.failNext(5, "server_error");
    const { status, body } = await alice.post("/api/ask", { question: "sourdough starter" });
    fake.reset();
    expect(status).toBe(200);
    expect(body.answer).toBeNull();
    expect(body.error).toBeTruthy();
    expect(body.passages.length).toBeGreaterThan(0);
  });
});
