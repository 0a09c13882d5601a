/**
 * A local stand-in for an OpenAI-compatible Chat Completions server (`POST /v1/chat/completions`,
 * non-streaming), for tests and benchmarks that must never reach the internet. It speaks the wire
 * format the real `openai` client expects — `choices[0].message` with `tool_calls` or `content`,
 * `usage` with `prompt_tokens`/`completion_tokens`, OpenAI's error envelope `{error: {message, type,
 * param, code}}` — and it can behave like the servers people use: refuse tools or a response format
 * with the exact status and text each real server sends (REFUSALS, from LLM-PROVIDERS.md §2),
 * ignore `tool_choice` and answer in text (Ollama), leave `usage` out, put a `<think>` block before
 * the answer, rate-limit with `Retry-After`, or answer slowly.
 *
 * What it answers comes from the Anthropic stand-in's deterministic responder (`defaultRespond`,
 * which reads the `<note_text_…>` and `<existing_concepts_…>` blocks of the user turn), so both
 * extractors can be given the very same answers. Input tokens ≈ request body chars / 4; output
 * tokens ≈ answer chars / 4.
 */
import { z } from "zod";
import { defaultRespond, type FakeReply, type ParsedRequest } from "./fake-anthropic";

type Form = "tools" | "json_schema" | "json_object" | "text";

/** Each real refusal: the status and body the server sends, and which request form triggers it. */
export const REFUSALS = {
  ollama_tools: { form: "tools", status: 400, body: { error: { message: "registry.ollama.ai/library/llama3:8b does not support tools", type: "api_error", param: null, code: null } } },
  ollama_native_tools: { form: "tools", status: 400, body: { error: "registry.ollama.ai/library/qwen3.5:0.8b does not support tools" } },
  deepseek_thinking_tool_choice: { form: "tools", status: 400, body: { error: { message: "Thinking mode does not support this tool_choice", type: "invalid_request_error", param: null, code: "invalid_request_error" } } },
  dashscope_thinking_tool_choice: {
    form: "tools",
    status: 400,
    body: { error: { message: "<400> InternalError.Algo.InvalidParameter: The tool_choice parameter does not support being set to required or object in thinking mode", type: "invalid_request_error", param: null, code: "invalid_parameter_error" } },
  },
  kimi_tool_choice: { form: "tools", status: 400, body: { error: { message: "Invalid request: tool_choice 'required' is not supported", type: "invalid_request_error" } } },
  vllm_auto_tool_choice: { form: "tools", status: 400, body: { object: "error", message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', type: "BadRequestError", param: null, code: 400 } },
  llamacpp_jinja: { form: "tools", status: 500, body: { error: { code: 500, message: "tools param requires --jinja flag", type: "server_error" } } },
  openai_json_schema: {
    form: "json_schema",
    status: 400,
    body: { error: { message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.", type: "invalid_request_error", param: "response_format", code: null } },
  },
  deepseek_json_schema: { form: "json_schema", status: 400, body: { error: { message: "This response_format type is unavailable now", type: "invalid_request_error", param: null, code: "invalid_request_error" } } },
  lmstudio_json_object: { form: "json_object", status: 400, body: { error: "'response_format.type' must be 'json_schema' or 'text'" } },
} as const satisfies Record<string, { form: Form; status: number; body: unknown }>;

export type RefusalName = keyof typeof REFUSALS;

export type FakeOpenAiReply =
  /** The answer object, given back in the form the request asked for (a tool call, or JSON text). */
  | { input: unknown }
  /** Raw message text (ignored tools, prose, broken JSON, an empty answer). */
  | { content: string; finish_reason?: string }
  /** An error answer with this status and body. */
  | { status: number; body: unknown; headers?: Record<string, string> };

export interface FakeOpenAiOptions {
  latencyMs?: number;
  /** When set, only `Authorization: Bearer <apiKey>` is accepted; otherwise any key, or none. */
  apiKey?: string;
  /** When set, other models get OpenAI's 404 model_not_found. */
  models?: string[];
  /** The forms this server refuses, and how (the real texts in REFUSALS). */
  refuse?: RefusalName[];
  /** Ollama: tools are accepted but `tool_choice` is ignored, and the model answers in text. */
  ignoreToolChoice?: boolean;
  /** Leave `usage` out of answers, as some local servers do. */
  omitUsage?: boolean;
  /** Put a reasoning block before every answer's text, as R1/Qwen3 models do. */
  thinkPrefix?: string;
  /** Replaces the default responder; the request's form decides how `{input}` is sent back. */
  respond?: (request: ParsedOpenAiRequest) => FakeOpenAiReply | FakeReply | Promise<FakeOpenAiReply | FakeReply>;
}

export interface ParsedOpenAiRequest extends Omit<ParsedRequest, "body"> {
  form: Form;
  body: ChatRequest & Record<string, unknown>;
  /** The raw body's length, which usage is computed from. */
  rawLength: number;
}

export interface FakeOpenAi {
  /** The base URL to give OPENAI_BASE_URL (ends in /v1). */
  url: string;
  /** Requests received on the completions route, refused and failed ones included. */
  readonly calls: number;
  /** When each of those requests arrived (epoch ms), in order: how long a client waited between tries. */
  readonly arrivals: number[];
  readonly requests: ParsedOpenAiRequest[];
  /** Answers with a 200. */
  readonly answered: number;
  readonly maxInFlight: number;
  /** Sum of the `usage` of every answer (also counted when it was left out of the answer). */
  readonly usage: { input_tokens: number; output_tokens: number };
  /** The next `count` requests get a 429 (with `Retry-After: retryAfter`) or a 503. */
  failNext(count: number, kind: "rate_limited" | "server_error", retryAfter?: string): void;
  setLatency(ms: number): void;
  reset(): void;
  stop(): Promise<void>;
}

const messageSchema = z.looseObject({
  role: z.enum(["system", "user", "assistant", "tool", "developer"]),
  content: z.union([z.string(), z.null(), z.array(z.looseObject({ type: z.string() }))]).optional(),
});

const requestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(messageSchema).min(1),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  stream: z.boolean().optional(),
  tools: z.array(z.looseObject({ type: z.literal("function"), function: z.looseObject({ name: z.string().min(1), parameters: z.looseObject({}).optional() }) })).optional(),
  tool_choice: z.union([z.enum(["auto", "none", "required"]), z.looseObject({ type: z.literal("function"), function: z.looseObject({ name: z.string() }) })]).optional(),
  response_format: z
    .union([
      z.looseObject({ type: z.literal("text") }),
      z.looseObject({ type: z.literal("json_object") }),
      z.looseObject({ type: z.literal("json_schema"), json_schema: z.looseObject({ name: z.string().min(1), schema: z.looseObject({}).optional() }) }),
    ])
    .optional(),
});

type ChatRequest = z.infer<typeof requestSchema>;

export async function startFakeOpenAi(options: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  let latencyMs = options.latencyMs ?? 0;
  let calls = 0;
  let arrivals: number[] = [];
  let answered = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let serial = 0;
  let requests: ParsedOpenAiRequest[] = [];
  let pending: Array<{ kind: "rate_limited" | "server_error"; retryAfter: string }> = [];
  let usage = { input_tokens: 0, output_tokens: 0 };
  const refused = new Set(options.refuse ?? []);

  const error = (status: number, message: string, type: string, code: string | null, headers: Record<string, string> = {}) =>
    Response.json({ error: { message, type, param: null, code } }, { status, headers });

  function completion(body: ChatRequest, rawLength: number, message: Record<string, unknown>, finishReason: string): Response {
    answered += 1;
    const inputTokens = Math.ceil(rawLength / 4);
    const outputTokens = Math.ceil(JSON.stringify(message).length / 4);
    usage = { input_tokens: usage.input_tokens + inputTokens, output_tokens: usage.output_tokens + outputTokens };
    return Response.json({
      id: `chatcmpl-fake${++serial}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { role: "assistant", refusal: null, ...message }, logprobs: null, finish_reason: finishReason }],
      ...(options.omitUsage ? {} : { usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens } }),
      system_fingerprint: null,
    });
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname !== "/v1/chat/completions" || request.method !== "POST") {
      return error(404, `Invalid URL (${request.method} ${url.pathname})`, "invalid_request_error", null);
    }
    calls += 1;
    arrivals.push(Date.now());
    const raw = await request.text();
    if (latencyMs) await Bun.sleep(latencyMs);

    const key = request.headers.get("authorization")?.replace(/^Bearer\s+/i, "") ?? "";
    if (options.apiKey !== undefined && key !== options.apiKey) {
      return error(401, `Incorrect API key provided: ${key.slice(0, 3)}***. You can find your API key at https://platform.openai.com/account/api-keys.`, "invalid_request_error", "invalid_api_key");
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return error(400, "We could not parse the JSON body of your request.", "invalid_request_error", null);
    }
    const parsed = requestSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return error(400, `Invalid value for '${issue.path.join(".") || "body"}': ${issue.message}`, "invalid_request_error", null);
    }
    const body = parsed.data;
    if (body.stream) return error(400, "stream: this fake server only answers non-streaming requests", "invalid_request_error", null);
    if (options.models && !options.models.includes(body.model)) {
      return error(404, `The model \`${body.model}\` does not exist or you do not have access to it.`, "invalid_request_error", "model_not_found");
    }
    const choice = body.tool_choice;
    if (choice && typeof choice === "object" && !body.tools?.some((tool) => tool.function.name === choice.function.name)) {
      return error(400, `Invalid value for 'tool_choice': function '${choice.function.name}' is not in tools`, "invalid_request_error", null);
    }
    const form: Form = body.tools && choice ? "tools" : body.response_format?.type === "json_schema" ? "json_schema" : body.response_format?.type === "json_object" ? "json_object" : "text";
    const described = describe(request.headers, body, form, raw.length);
    requests.push(described);

    const failure = pending.shift();
    if (failure) {
      return failure.kind === "rate_limited"
        ? error(429, "Rate limit reached for requests", "requests", "rate_limit_exceeded", { "retry-after": failure.retryAfter })
        : error(503, "The server is overloaded or not ready yet.", "server_error", null, { "retry-after": failure.retryAfter });
    }
    for (const name of refused) {
      const refusal = REFUSALS[name];
      if (refusal.form === form) return Response.json(refusal.body, { status: refusal.status });
    }
    // DashScope and DeepSeek: json_object needs the word "json" somewhere in the messages.
    if (form === "json_object" && !/json/i.test(JSON.stringify(body.messages))) {
      return error(400, "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", "invalid_request_error", null);
    }

    const reply: FakeOpenAiReply | FakeReply = options.respond ? await options.respond(described) : defaultRespond(described as unknown as ParsedRequest);
    if ("status" in reply && "body" in reply) return Response.json(reply.body, { status: reply.status, headers: reply.headers });
    if ("status" in reply && "error" in reply) return error(reply.status, reply.error.message, reply.error.type, null);
    const think = options.thinkPrefix ?? "";
    if ("content" in reply && typeof reply.content === "string") {
      return completion(body, raw.length, { content: think + reply.content }, (reply as { finish_reason?: string }).finish_reason ?? "stop");
    }
    if (!("input" in reply)) return error(500, "the fake's responder gave nothing to send", "server_error", null);
    const answer = JSON.stringify(reply.input);
    if (form === "tools" && !options.ignoreToolChoice) {
      const name = typeof choice === "object" ? choice.function.name : body.tools![0]!.function.name;
      return completion(body, raw.length, { content: think || null, tool_calls: [{ id: `call_fake${++serial}`, type: "function", function: { name, arguments: answer } }] }, "tool_calls");
    }
    return completion(body, raw.length, { content: think + answer }, "stop");
  }

  async function counted(request: Request): Promise<Response> {
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    try {
      return await handle(request);
    } finally {
      inFlight--;
    }
  }

  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: counted, idleTimeout: 0 });

  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    get calls() {
      return calls;
    },
    get arrivals() {
      return arrivals;
    },
    get requests() {
      return requests;
    },
    get answered() {
      return answered;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    get usage() {
      return usage;
    },
    failNext(count, kind, retryAfter = "0") {
      for (let i = 0; i < count; i++) pending.push({ kind, retryAfter });
    },
    setLatency(ms) {
      latencyMs = ms;
    },
    reset() {
      calls = 0;
      arrivals = [];
      answered = 0;
      maxInFlight = 0;
      requests = [];
      pending = [];
      usage = { input_tokens: 0, output_tokens: 0 };
    },
    async stop() {
      await server.stop(true);
    },
  };
}

function describe(headers: Headers, body: ChatRequest, form: Form, rawLength: number): ParsedOpenAiRequest {
  const text = (turn: z.infer<typeof messageSchema>) =>
    typeof turn.content === "string" ? turn.content : (turn.content ?? []).map((part) => (typeof part.text === "string" ? part.text : "")).join("\n\n");
  const userTexts = body.messages.filter((turn) => turn.role === "user").map(text);
  const first = userTexts[0] ?? "";
  return {
    headers: Object.fromEntries(headers.entries()),
    body: body as ParsedOpenAiRequest["body"],
    userText: userTexts.join("\n\n"),
    system: body.messages.filter((turn) => turn.role === "system").map(text).join("\n"),
    noteText: taggedBlock(first, "note_text"),
    existingConcepts: (taggedBlock(first, "existing_concepts") ?? "")
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean),
    form,
    rawLength,
  } as ParsedOpenAiRequest;
}

function taggedBlock(text: string, name: string): string | null {
  const match = new RegExp(`<${name}_([0-9a-f]+)>\\n([\\s\\S]*?)\\n</${name}_\\1>`).exec(text);
  return match ? match[2]! : null;
}
