import type { Message, MessageCreateParamsNonStreaming, MessageParam, Tool } from "@anthropic-ai/sdk/resources/messages";
import {
  BudgetExhaustedError,
  noteText,
  type ExtractionContext,
  type ExtractionUsage,
  type Extractor,
  type NoteExtraction,
  type NoteForExtraction,
} from "../extraction";
import { createAnthropicClient, toAnthropicRequestError } from "../../llm/providers/anthropic";
import { splitIntoChunks } from "../../llm/chunk-text";
import { CLAUDE_TOKENS, estimateTextTokens } from "../../llm/estimate-tokens";
import { ExtractionAssembler } from "./llm/assemble";
import { ExtractionFailedError } from "./llm/errors";
import { chunkMessage, SYSTEM_PROMPT } from "./llm/prompt";
import { describeIssues, knowledgeGraphJsonSchema, knowledgeGraphSchema, TOOL_DESCRIPTION, TOOL_NAME, type KnowledgeGraphAnswer } from "./llm/schema";

export { AnthropicRequestError } from "../../llm/providers/anthropic";
export { ExtractionFailedError } from "./llm/errors";

export const DEFAULT_MAX_CHUNK_CHARS = 12_000;
const DEFAULT_MAX_RETRIES = 4;
const DEFAULT_TIMEOUT_MS = 120_000;
// Room for 30 concepts and 60 relations with quotes; a cut-off answer fails validation and is retried.
const MAX_OUTPUT_TOKENS = 8_192;

export interface AnthropicExtractorOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  /** Retries of 429/5xx/529 and connection errors, done by the SDK with its own backoff. */
  maxRetries?: number;
  /** Per request (each attempt). */
  timeoutMs?: number;
  /** Longer note texts are split at headings/paragraphs into chunks of at most this many UTF-16 units. */
  maxChunkChars?: number;
}

/**
 * Extracts concepts and relations with Claude through a forced tool call, one call per chunk of the
 * note (usually one per note). Throws `ExtractionFailedError` when the model's answer is still
 * invalid after one retry, `AnthropicRequestError` when the API fails, and the signal's reason
 * when `context.signal` aborts.
 */
export function createAnthropicExtractor(options: AnthropicExtractorOptions): Extractor {
  const maxChunkChars = options.maxChunkChars ?? DEFAULT_MAX_CHUNK_CHARS;
  if (!Number.isInteger(maxChunkChars) || maxChunkChars < 50) {
    throw new RangeError("maxChunkChars must be an integer of at least 50");
  }
  const client = createAnthropicClient({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  });

  async function extract(note: NoteForExtraction, context: ExtractionContext): Promise<NoteExtraction> {
    const text = noteText(note);
    const usage: ExtractionUsage = { llm_calls: 0, input_tokens: 0, output_tokens: 0 };
    if (text.trim() === "") return { concepts: [], relations: [], usage };

    const chunks = splitIntoChunks(text, maxChunkChars);
    const assembler = new ExtractionAssembler(note.title.length, context.existingConcepts);
    // Chunks run one after another so later ones can reuse the names found in earlier ones.
    for (const [index, chunk] of chunks.entries()) {
      if (chunk.text.trim() === "") continue;
      const userMessage = chunkMessage(note, chunk.text, { index, count: chunks.length }, context.existingConcepts, assembler.names);
      const answer = await extractChunk(note, userMessage, usage, context);
      assembler.add(chunk, answer);
    }
    return { ...assembler.result(), usage };
  }

  async function extractChunk(
    note: NoteForExtraction,
    userMessage: string,
    usage: ExtractionUsage,
    context: ExtractionContext,
  ): Promise<KnowledgeGraphAnswer> {
    const first = await send([{ role: "user", content: userMessage }], usage, context);
    const firstAnswer = readAnswer(first);
    if (firstAnswer.ok) return firstAnswer.answer;

    const second = await send(retryMessages(userMessage, first, firstAnswer.problem), usage, context);
    const secondAnswer = readAnswer(second);
    if (secondAnswer.ok) return secondAnswer.answer;
    throw new ExtractionFailedError(`the model's answer did not match the schema: ${secondAnswer.problem}`, {
      noteId: note.id,
      usage,
    });
  }

  async function send(messages: MessageParam[], usage: ExtractionUsage, { signal, budget }: ExtractionContext): Promise<Message> {
    const params = requestParams(options.model, messages);
    const reserved = estimateInputTokens(params);
    if (budget && !budget.take(reserved)) throw new BudgetExhaustedError(usage);
    let message: Message;
    try {
      message = await client.messages.create(params, signal ? { signal } : undefined);
    } catch (error) {
      budget?.settle(reserved, 0, false);
      if (signal?.aborted) throw signal.reason ?? error;
      throw toAnthropicRequestError(error, usage);
    }
    budget?.settle(reserved, message.usage?.input_tokens ?? reserved, true);
    usage.llm_calls += 1;
    usage.input_tokens += message.usage?.input_tokens ?? 0;
    usage.output_tokens += message.usage?.output_tokens ?? 0;
    return message;
  }

  // The request without its message (model, system prompt, tool schema) is the same for every call.
  let fixed: number | undefined;
  const fixedTokens = () => (fixed ??= estimateInputTokens(requestParams(options.model, [{ role: "user", content: "" }])));

  /** What `extract` would send for the note on the first try: the real prompts, no call. */
  function estimate(note: NoteForExtraction, existingConcepts: string[]): ExtractionUsage {
    const usage: ExtractionUsage = { llm_calls: 0, input_tokens: 0, output_tokens: 0 };
    const text = noteText(note);
    if (text.trim() === "") return usage;
    const chunks = splitIntoChunks(text, maxChunkChars);
    for (const [index, chunk] of chunks.entries()) {
      if (chunk.text.trim() === "") continue;
      const userMessage = chunkMessage(note, chunk.text, { index, count: chunks.length }, existingConcepts);
      usage.llm_calls += 1;
      usage.input_tokens += fixedTokens() + estimateTextTokens(JSON.stringify(userMessage), CLAUDE_TOKENS);
      // An answer restates the chunk's concepts with short quotes: about half its size, plus the JSON around it.
      usage.output_tokens += Math.min(MAX_OUTPUT_TOKENS, 150 + Math.ceil(estimateTextTokens(chunk.text, CLAUDE_TOKENS) / 2));
    }
    return usage;
  }

  return { name: "anthropic", extract, estimate };
}

/** The request for one chunk (or its one retry). */
export function requestParams(model: string, messages: MessageParam[]): MessageCreateParamsNonStreaming {
  return {
    model,
    max_tokens: MAX_OUTPUT_TOKENS,
    system: SYSTEM_PROMPT,
    tools: [KNOWLEDGE_GRAPH_TOOL],
    tool_choice: { type: "tool", name: TOOL_NAME, disable_parallel_tool_use: true },
    messages,
  };
}

const KNOWLEDGE_GRAPH_TOOL: Tool = { name: TOOL_NAME, description: TOOL_DESCRIPTION, input_schema: knowledgeGraphJsonSchema() };

/** The request body as it is sent: system prompt, tool schema and messages all count. */
function estimateInputTokens(params: MessageCreateParamsNonStreaming): number {
  return estimateTextTokens(JSON.stringify(params), CLAUDE_TOKENS);
}

type ReadAnswer = { ok: true; answer: KnowledgeGraphAnswer } | { ok: false; problem: string };

/** Finds the forced tool call and parses its input; the model's answer is never trusted as typed. */
function readAnswer(message: Message): ReadAnswer {
  const call = message.content.find((block) => block.type === "tool_use" && block.name === TOOL_NAME);
  if (!call || call.type !== "tool_use") {
    return { ok: false, problem: `no ${TOOL_NAME} tool call in the answer (stop reason: ${message.stop_reason ?? "none"})` };
  }
  if (message.stop_reason === "max_tokens") {
    return { ok: false, problem: "the answer was cut off at the output token limit" };
  }
  const parsed = knowledgeGraphSchema.safeParse(call.input);
  return parsed.success ? { ok: true, answer: parsed.data } : { ok: false, problem: describeIssues(parsed.error) };
}

/**
 * The conversation for the one retry: the tool call and an error result naming the problem when
 * there was a complete call, otherwise the request again with a short reminder (a cut-off call is
 * not worth replaying).
 */
function retryMessages(userMessage: string, previous: Message, problem: string): MessageParam[] {
  const call = previous.content.find((block) => block.type === "tool_use" && block.name === TOOL_NAME);
  if (call && call.type === "tool_use" && previous.stop_reason !== "max_tokens") {
    return [
      { role: "user", content: userMessage },
      { role: "assistant", content: [{ type: "tool_use", id: call.id, name: call.name, input: call.input }] },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: call.id,
            is_error: true,
            content: `Invalid input: ${problem}. Call ${TOOL_NAME} again with a complete input that matches the schema.`,
          },
        ],
      },
    ];
  }
  const reminder = `A previous answer to this request was unusable (${problem}). Call ${TOOL_NAME} once, with fewer and shorter items if needed.`;
  return [
    {
      role: "user",
      content: [
        { type: "text", text: userMessage },
        { type: "text", text: reminder },
      ],
    },
  ];
}
