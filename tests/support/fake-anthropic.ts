/**
 * A local stand-in for Anthropic's Messages API (`POST /v1/messages`, non-streaming), for tests and
 * benchmarks that must never reach the internet. It speaks the real wire format — auth and version
 * headers, error bodies `{type: "error", error: {type, message}}` with their real statuses, and
 * `tool_use` answers with `usage` — so the real `@anthropic-ai/sdk` client (retries included) runs
 * against it unchanged. The key may come as `x-api-key` or as `Authorization: Bearer` (what the
 * installed SDK sends).
 *
 * How the default responder reads a request: the extractor's user turn holds the note chunk between
 * `<note_text_SUFFIX>\n` and `\n</note_text_SUFFIX>` (SUFFIX is hex, the same in closing and opening
 * tag) and the user's existing concept names one per line between `<existing_concepts_SUFFIX>` tags.
 * From the note text it answers, deterministically:
 * - concepts: existing names that occur in the text (their spelling kept), `[[wikilinks]]`, the
 *   entries of a `Tags:` line, and runs of Capitalised Words — in order of first occurrence, at most
 *   30, each with a verbatim `evidence` quote around its first occurrence;
 * - relations: "mentioned with" between each pair of consecutive concepts.
 * Input tokens ≈ request body chars / 4; output tokens ≈ answer JSON chars / 4.
 *
 * A request whose user turn holds `document` blocks with `citations: {enabled: true}` (how questions
 * are asked) is answered by `citingRespond` instead: plain text blocks carrying the API's
 * `content_block_location` citations of custom-content documents. With `stream: true`, any text
 * answer is sent as the API's server-sent events (`message_start`, `content_block_start`,
 * `text_delta` and `citations_delta` deltas, `content_block_stop`, `message_delta`, `message_stop`).
 */
import { z } from "zod";

export type FailureKind = "overloaded" | "rate_limited" | "server_error" | "malformed_tool_input" | "no_tool_use";

export interface ParsedRequest {
  headers: Record<string, string>;
  /** The JSON body as sent (loosely validated). */
  body: MessagesRequest;
  /** Every text of every user turn, joined by blank lines. */
  userText: string;
  /** The system prompt as one string ("" when absent). */
  system: string;
  /** The note chunk between the `<note_text_…>` tags of the first user turn, or null. */
  noteText: string | null;
  /** Names between the `<existing_concepts_…>` tags, or []. */
  existingConcepts: string[];
  /** The `document` blocks of the first user turn: title, the text of each content block, citations on or off. */
  documents: { title: string | null; blocks: string[]; citations: boolean }[];
}

export type FakeReply =
  /** A `tool_use` block for the forced tool, with this input. */
  | { input: unknown; stop_reason?: string }
  /** Raw content blocks, e.g. only text. */
  | { content: unknown[]; stop_reason?: string }
  /** One of the canned failures `failNext` also produces. */
  | { fail: FailureKind }
  /** An error answer in the API's shape, `{type: "error", error: {type, message}}`, with this status. */
  | { status: number; error: { type: string; message: string } };

export interface FakeAnthropicOptions {
  /** Delay before every answer, errors included (the benchmark uses 200 ms). */
  latencyMs?: number;
  /** Replaces the default responder (see `defaultRespond`). */
  respond?: (request: ParsedRequest) => FakeReply | Promise<FakeReply>;
  /** When set, only this key is accepted; otherwise any non-empty key is. */
  apiKey?: string;
  /** Sent as `retry-after-ms` with 429/5xx answers (the SDK ignores `retry-after: 0` and backs off ~0.5 s). */
  retryAfterMs?: number;
}

export interface FakeAnthropic {
  url: string;
  /** Requests received on `POST /v1/messages`, failed ones included. */
  readonly calls: number;
  readonly requests: ParsedRequest[];
  /** The most requests ever being answered at the same time. */
  readonly maxInFlight: number;
  /** Sum of the `usage` of every message answered (failures with a message body included). */
  readonly usage: { input_tokens: number; output_tokens: number };
  /** When the latest answer was sent (performance.timeOrigin + performance.now()), 0 before any. */
  readonly lastAnsweredAt: number;
  /** Changes the delay before every answer from now on. */
  setLatency(ms: number): void;
  /** The next `count` valid requests fail with `kind`. */
  failNext(count: number, kind: FailureKind): void;
  /** Calls `hook` with each request's number (as `calls` counts it) when it arrives, before it is answered; undefined removes it. */
  onRequest(hook: ((call: number) => void) | undefined): void;
  reset(): void;
  stop(): Promise<void>;
}

const messageSchema = z.object({
  role: z.enum(["user", "assistant"]),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() })).min(1)]),
});

const requestSchema = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  messages: z.array(messageSchema).min(1),
  system: z.union([z.string(), z.array(z.looseObject({ type: z.literal("text"), text: z.string() }))]).optional(),
  tools: z
    .array(z.looseObject({ name: z.string().min(1), input_schema: z.looseObject({ type: z.literal("object") }) }))
    .optional(),
  tool_choice: z
    .looseObject({ type: z.enum(["auto", "any", "tool", "none"]), name: z.string().optional() })
    .optional(),
  stream: z.boolean().optional(),
});

export type MessagesRequest = z.infer<typeof requestSchema>;

const FAILURES: Record<"overloaded" | "rate_limited" | "server_error", { status: number; type: string; message: string }> = {
  overloaded: { status: 529, type: "overloaded_error", message: "Overloaded" },
  rate_limited: { status: 429, type: "rate_limit_error", message: "Number of request tokens has exceeded your per-minute rate limit" },
  server_error: { status: 500, type: "api_error", message: "Internal server error" },
};

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const respond = options.respond ?? defaultRespond;
  let latencyMs = options.latencyMs ?? 0;
  let lastAnsweredAt = 0;
  const retryAfterMs = options.retryAfterMs ?? 1;
  let calls = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let serial = 0;
  let requests: ParsedRequest[] = [];
  let pending: FailureKind[] = [];
  let usage = { input_tokens: 0, output_tokens: 0 };
  let requestHook: ((call: number) => void) | undefined;

  const nextId = () => String(++serial).padStart(6, "0");

  function error(status: number, type: string, message: string, extraHeaders: Record<string, string> = {}): Response {
    const requestId = `req_fake_${nextId()}`;
    return Response.json(
      { type: "error", error: { type, message }, request_id: requestId },
      { status, headers: { "request-id": requestId, ...extraHeaders } },
    );
  }

  function failure(kind: FailureKind, body: MessagesRequest, rawLength: number, toolName: string): Response {
    if (kind === "malformed_tool_input") return message(body, rawLength, toolUse(toolName, { concepts: [{ name: 42 }], relations: "none" }), "tool_use");
    if (kind === "no_tool_use") return message(body, rawLength, [{ type: "text", text: "I would rather not." }], "end_turn");
    const { status, type, message: text } = FAILURES[kind];
    return error(status, type, text, { "retry-after": "0", "retry-after-ms": String(retryAfterMs) });
  }

  function toolUse(name: string, input: unknown): unknown[] {
    return [{ type: "tool_use", id: `toolu_fake_${nextId()}`, name, input, caller: { type: "direct" } }];
  }

  function message(body: MessagesRequest, rawLength: number, content: unknown[], stopReason: string): Response {
    const requestId = `req_fake_${nextId()}`;
    const inputTokens = Math.ceil(rawLength / 4);
    const outputTokens = Math.ceil(JSON.stringify(content).length / 4);
    usage = { input_tokens: usage.input_tokens + inputTokens, output_tokens: usage.output_tokens + outputTokens };
    return Response.json(
      {
        id: `msg_fake_${nextId()}`,
        type: "message",
        role: "assistant",
        model: body.model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: {
          input_tokens: inputTokens,
          output_tokens: outputTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      },
      { headers: { "request-id": requestId } },
    );
  }

  /** A text answer as the API streams it: each block's text in small `text_delta`s, then its `citations_delta`s. */
  function streamed(body: MessagesRequest, rawLength: number, content: TextReplyBlock[], stopReason: string): Response {
    const inputTokens = Math.ceil(rawLength / 4);
    const outputTokens = Math.ceil(JSON.stringify(content).length / 4);
    usage = { input_tokens: usage.input_tokens + inputTokens, output_tokens: usage.output_tokens + outputTokens };
    const events: [string, unknown][] = [
      [
        "message_start",
        {
          type: "message_start",
          message: {
            id: `msg_fake_${nextId()}`,
            type: "message",
            role: "assistant",
            model: body.model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: inputTokens, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
          },
        },
      ],
      ["ping", { type: "ping" }],
    ];
    content.forEach((block, index) => {
      events.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "", ...(block.citations ? { citations: [] } : {}) } }]);
      for (let at = 0; at < block.text.length; at += 12) {
        events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: block.text.slice(at, at + 12) } }]);
      }
      for (const citation of block.citations ?? []) events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "citations_delta", citation } }]);
      events.push(["content_block_stop", { type: "content_block_stop", index }]);
    });
    events.push(["message_delta", { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } }]);
    events.push(["message_stop", { type: "message_stop" }]);
    const text = events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join("");
    return new Response(text, { headers: { "content-type": "text/event-stream", "request-id": `req_fake_${nextId()}` } });
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname !== "/v1/messages" || request.method !== "POST") {
      return error(404, "not_found_error", `${request.method} ${url.pathname} not found`);
    }
    calls += 1;
    requestHook?.(calls);
    const raw = await request.text();
    if (latencyMs) await Bun.sleep(latencyMs);

    const key = request.headers.get("x-api-key") ?? request.headers.get("authorization")?.replace(/^Bearer\s+/i, "") ?? "";
    if (!key) return error(401, "authentication_error", "x-api-key header is required");
    if (options.apiKey !== undefined && key !== options.apiKey) return error(401, "authentication_error", "invalid x-api-key");
    if (!request.headers.get("anthropic-version")) {
      return error(400, "invalid_request_error", "anthropic-version: header is required");
    }

    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return error(400, "invalid_request_error", "The request body is not valid JSON.");
    }
    const parsed = requestSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return error(400, "invalid_request_error", `${issue.path.join(".") || "body"}: ${issue.message}`);
    }
    const body = parsed.data;
    const choice = body.tool_choice;
    if (choice?.type === "tool" && !body.tools?.some((tool) => tool.name === choice.name)) {
      return error(400, "invalid_request_error", `tool_choice: tool \`${choice.name}\` is not in tools`);
    }

    const parsedRequest = describeRequest(request.headers, body);
    requests.push(parsedRequest);
    const toolName = choice?.type === "tool" && choice.name ? choice.name : (body.tools?.[0]?.name ?? "tool");

    const injected = pending.shift();
    if (injected) return failure(injected, body, raw.length, toolName);

    const reply = await (parsedRequest.documents.some((document) => document.citations) && !options.respond ? citingRespond : respond)(parsedRequest);
    if ("fail" in reply) return failure(reply.fail, body, raw.length, toolName);
    if ("error" in reply) return error(reply.status, reply.error.type, reply.error.message);
    if (body.stream) {
      if (!("content" in reply) || reply.content.some((block) => (block as { type?: string }).type !== "text")) {
        return error(400, "invalid_request_error", "stream: this fake server streams text answers only");
      }
      return streamed(body, raw.length, reply.content as TextReplyBlock[], reply.stop_reason ?? "end_turn");
    }
    if ("content" in reply) return message(body, raw.length, reply.content, reply.stop_reason ?? "end_turn");
    return message(body, raw.length, toolUse(toolName, reply.input), reply.stop_reason ?? "tool_use");
  }

  async function counted(request: Request): Promise<Response> {
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    try {
      return await handle(request);
    } finally {
      inFlight--;
      lastAnsweredAt = performance.timeOrigin + performance.now();
    }
  }

  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: counted });

  return {
    url: `http://127.0.0.1:${server.port}`,
    get calls() {
      return calls;
    },
    get requests() {
      return requests;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    get usage() {
      return usage;
    },
    get lastAnsweredAt() {
      return lastAnsweredAt;
    },
    setLatency(ms) {
      latencyMs = ms;
    },
    failNext(count, kind) {
      for (let i = 0; i < count; i++) pending.push(kind);
    },
    onRequest(hook) {
      requestHook = hook;
    },
    reset() {
      calls = 0;
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

function describeRequest(headers: Headers, body: MessagesRequest): ParsedRequest {
  const userTexts = body.messages.filter((turn) => turn.role === "user").map(textOf);
  const first = userTexts[0] ?? "";
  const system = typeof body.system === "string" ? body.system : (body.system ?? []).map((block) => block.text).join("\n");
  return {
    headers: Object.fromEntries(headers.entries()),
    body,
    userText: userTexts.join("\n\n"),
    system,
    noteText: taggedBlock(first, "note_text"),
    existingConcepts: (taggedBlock(first, "existing_concepts") ?? "")
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean),
    documents: documentsOf(body.messages.find((turn) => turn.role === "user")),
  };
}

function documentsOf(turn: z.infer<typeof messageSchema> | undefined): ParsedRequest["documents"] {
  if (!turn || typeof turn.content === "string") return [];
  return turn.content
    .filter((block) => block.type === "document")
    .map((block) => {
      const source = block.source as { type?: string; content?: unknown; data?: unknown } | undefined;
      const blocks =
        source?.type === "content" && Array.isArray(source.content)
          ? source.content.map((part: { text?: unknown }) => (typeof part.text === "string" ? part.text : ""))
          : typeof source?.data === "string"
            ? [source.data]
            : [];
      return {
        title: typeof block.title === "string" ? block.title : null,
        blocks,
        citations: (block.citations as { enabled?: boolean } | undefined)?.enabled === true,
      };
    });
}

export interface TextReplyBlock {
  type: "text";
  text: string;
  citations?: unknown[];
}

/**
 * The deterministic answer to a question asked with cited documents: for each of the first three
 * documents, a lead-in ("<title>: ") and then its first block (the first two for the first document,
 * when it has two) restated and cited as `content_block_location`; a closing full stop.
 */
export function citingRespond(request: ParsedRequest): FakeReply {
  const content: TextReplyBlock[] = [];
  request.documents.slice(0, 3).forEach((document, index) => {
    if (!document.citations || document.blocks.length === 0) return;
    const end = index === 0 ? Math.min(2, document.blocks.length) : 1;
    const cited = document.blocks.slice(0, end).join("");
    content.push({ type: "text", text: `${index === 0 ? "" : " "}${document.title ?? "A note"}: ` });
    content.push({
      type: "text",
      text: cited.slice(0, 80),
      citations: [
        {
          type: "content_block_location",
          cited_text: cited,
          document_index: index,
          document_title: document.title,
          start_block_index: 0,
          end_block_index: end,
          file_id: null,
        },
      ],
    });
  });
  if (content.length === 0) content.push({ type: "text", text: "The notes do not say." });
  else content.push({ type: "text", text: "." });
  return { content };
}

function textOf(turn: z.infer<typeof messageSchema>): string {
  if (typeof turn.content === "string") return turn.content;
  return turn.content
    .map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : ""))
    .filter(Boolean)
    .join("\n\n");
}

function taggedBlock(text: string, name: string): string | null {
  const match = new RegExp(`<${name}_([0-9a-f]+)>\\n([\\s\\S]*?)\\n</${name}_\\1>`).exec(text);
  return match ? match[2]! : null;
}

// Capitalised words that start sentences rather than name things.
const STOPWORDS = new Set(
  "a an the this that these those it its i we you he she they my our your his her their in on at for and but or if when then so to of as by with from is are was were be not no yes also however there here what why how see note title tags part".split(
    " ",
  ),
);

interface Found {
  name: string;
  type: string;
  at: number;
  length: number;
}

/** The deterministic answer described at the top of this file. */
export function defaultRespond(request: ParsedRequest): FakeReply {
  const text = request.noteText ?? "";
  const found: Found[] = [];
  const lower = text.toLowerCase();

  for (const name of request.existingConcepts) {
    const at = lower.indexOf(name.toLowerCase());
    if (at >= 0) found.push({ name, type: "other", at, length: name.length });
  }
  const linked: Array<[number, number]> = [];
  for (const match of text.matchAll(/\[\[([^\]|#\n]+)(?:[#|][^\]\n]*)?\]\]/g)) {
    const name = match[1]!.trim();
    linked.push([match.index, match.index + match[0].length]);
    if (name) found.push({ name, type: "topic", at: match.index, length: match[0].length });
  }
  for (const line of text.matchAll(/^[ \t]*Tags?:[ \t]*(.+)$/gim)) {
    const listStart = line.index + line[0].length - line[1]!.length;
    for (const tag of line[1]!.matchAll(/#?([^,;#\s][^,;#]*)/g)) {
      const name = tag[1]!.trim();
      if (name) found.push({ name, type: "topic", at: listStart + tag.index, length: tag[0].length });
    }
  }
  for (const match of text.matchAll(/\p{Lu}[\p{L}\p{N}'’-]*(?:[ \t]+\p{Lu}[\p{L}\p{N}'’-]*)*/gu)) {
    if (linked.some(([start, end]) => match.index >= start && match.index < end)) continue;
    const words = match[0].replace(/['’]s$/u, "").split(/[ \t]+/);
    let skipped = 0;
    while (words.length > 0 && STOPWORDS.has(words[0]!.toLowerCase())) skipped += words.shift()!.length;
    const name = words.join(" ");
    if (name.length < 2) continue;
    const at = match.index + match[0].indexOf(name, skipped);
    found.push({ name, type: "other", at, length: name.length });
  }

  // Existing names come first in `found`, so their spelling wins over the text's.
  const byKey = new Map<string, Found>();
  for (const item of found) {
    const key = item.name.toLowerCase();
    const known = byKey.get(key);
    if (!known) byKey.set(key, item);
    else if (item.at < known.at) byKey.set(key, { ...known, at: item.at, length: item.length });
  }
  const concepts = [...byKey.values()].sort((a, b) => a.at - b.at).slice(0, 30);

  return {
    input: {
      concepts: concepts.map((item) => ({
        name: item.name,
        type: item.type,
        description: `Mentioned in the note.`,
        aliases: [],
        evidence: quoteAround(text, item.at, item.at + item.length),
      })),
      relations: concepts.slice(1).map((item, index) => {
        const previous = concepts[index]!;
        return {
          source: previous.name,
          target: item.name,
          label: "mentioned with",
          evidence: quoteAround(text, previous.at, item.at + item.length),
        };
      }),
    },
  };
}

/** A verbatim slice of the line(s) around [start, end), about 40 characters each side, never halving a surrogate pair. */
function quoteAround(text: string, start: number, end: number): string {
  if (end - start > 200) end = start + 200;
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  const lineEndAt = text.indexOf("\n", end);
  const lineEnd = lineEndAt < 0 ? text.length : lineEndAt;
  let from = Math.max(lineStart, start - 40);
  let to = Math.min(Math.max(lineEnd, end), end + 40);
  if (isLowSurrogate(text.charCodeAt(from))) from -= 1;
  if (isLowSurrogate(text.charCodeAt(to))) to += 1;
  return text.slice(from, to).trim();
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
