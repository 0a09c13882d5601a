import type { MessageCreateParamsBase, TextCitation } from "@anthropic-ai/sdk/resources/messages";
import { estimateTextTokens } from "../../llm/estimate-tokens";
import { createAnthropicClient, toAnthropicRequestError } from "../../llm/providers/anthropic";
import { AnswerFailedError, withAnswerDeadline, type Answer, type Answerer, type AnswerListener, type AnswerSources } from "./answerer";
import { AnswerWriter } from "./answer-writer";
import { blockText, toCitedDocuments } from "./cited-documents";
import { passagesWithin } from "./input-budget";

export interface AnthropicAnswererOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  /** ASK_MAX_INPUT_TOKENS: the passages sent stop before this many (estimated) input tokens. */
  maxInputTokens: number;
  maxRetries?: number;
  timeoutMs?: number;
}

// A question is answered within the contract's 30 s, retries included.
const DEFAULT_TIMEOUT_MS = 12_000;
const DEFAULT_MAX_RETRIES = 1;
const MAX_OUTPUT_TOKENS = 1024;

export const ANSWER_SYSTEM_PROMPT = [
  "You answer a person's question from passages of their own notes, given as documents.",
  "Use only what the documents say; if they do not answer the question, say so in one sentence.",
  "Answer in the language of the question, briefly, and cite the sentences each statement comes from.",
].join(" ");

/**
 * Answers with Claude in one Messages API call: each passage is a custom-content document whose
 * blocks are its sentences, with citations enabled, so every citation is a block range that maps
 * to an exact span of the note. Citations cannot be combined with structured outputs (the API
 * answers 400), so the answer is plain text with the API's own citations. Streams when a listener
 * is given (`citations_delta` events arrive inside the text blocks).
 */
export function createAnthropicAnswerer(options: AnthropicAnswererOptions): Answerer {
  const client = createAnthropicClient({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  });

  async function answer(sources: AnswerSources, listener: AnswerListener | undefined, signal: AbortSignal | undefined): Promise<Answer> {
    const question = { type: "text" as const, text: sources.question };
    const overhead = estimateTextTokens(ANSWER_SYSTEM_PROMPT) + estimateTextTokens(sources.question) + 50;
    const passages = passagesWithin(sources.passages, options.maxInputTokens - overhead);
    if (passages.length === 0) {
      throw new AnswerFailedError(`ASK_MAX_INPUT_TOKENS (${options.maxInputTokens}) leaves no room for a passage`, { llm_calls: 0, input_tokens: 0, output_tokens: 0 });
    }
    const documents = toCitedDocuments(passages);
    const params: MessageCreateParamsBase = {
      model: options.model,
      max_tokens: MAX_OUTPUT_TOKENS,
      system: ANSWER_SYSTEM_PROMPT,
      messages: [
        {
          role: "user",
          content: [
            ...documents.map((document) => ({
              type: "document" as const,
              source: { type: "content" as const, content: document.blocks.map((_, index) => ({ type: "text" as const, text: blockText(document, index) })) },
              title: document.passage.title,
              citations: { enabled: true },
            })),
            question,
          ],
        },
      ],
    };
    const writer = new AnswerWriter(documents, sources.contents, listener);
    const deadline = withAnswerDeadline(signal);
    const usage = { llm_calls: 1, input_tokens: 0, output_tokens: 0 };
    try {
      if (!listener) {
        const message = await client.messages.create({ ...params, stream: false }, { signal: deadline });
        usage.input_tokens = message.usage.input_tokens;
        usage.output_tokens = message.usage.output_tokens;
        for (const block of message.content) {
          if (block.type !== "text") continue;
          writer.text(block.text);
          writer.endBlock(locations(block.citations ?? []));
        }
      } else {
        const stream = await client.messages.create({ ...params, stream: true }, { signal: deadline });
        let cited: TextCitation[] = [];
        for await (const event of stream) {
          if (event.type === "message_start") usage.input_tokens = event.message.usage.input_tokens;
          else if (event.type === "message_delta") usage.output_tokens = event.usage.output_tokens;
          else if (event.type === "content_block_start") cited = [];
          else if (event.type === "content_block_delta" && event.delta.type === "text_delta") writer.text(event.delta.text);
          else if (event.type === "content_block_delta" && event.delta.type === "citations_delta") cited.push(event.delta.citation);
          else if (event.type === "content_block_stop") writer.endBlock(locations(cited));
        }
      }
    } catch (error) {
      throw new AnswerFailedError(toAnthropicRequestError(error, usage).message, usage);
    }
    const written = writer.result();
    if (!written.text.trim()) throw new AnswerFailedError("the model gave no answer", usage);
    return { ...written, usage };
  }

  return { name: "anthropic", answer };
}

/** The block ranges of content-document citations; other kinds (character or page ranges) are not ours to map. */
function locations(citations: TextCitation[]) {
  return citations.flatMap((citation) =>
    citation.type === "content_block_location"
      ? [{ documentIndex: citation.document_index, startBlock: citation.start_block_index, endBlock: citation.end_block_index }]
      : [],
  );
}
