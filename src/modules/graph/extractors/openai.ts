import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { splitIntoChunks, type TextChunk } from "../../llm/chunk-text";
import { estimateTextTokens, OPENAI_COMPATIBLE_TOKENS } from "../../llm/estimate-tokens";
import { completionUsage, createOpenAiClient, OpenAiRequestError, type ChatRequest, type OpenAiSettings } from "../../llm/providers/openai";
import {
  isRefusalOf,
  nextStep,
  readStructuredAnswer,
  rememberedStep,
  rememberStep,
  structuredFields,
  type StructuredOutputStep,
  type StructuredSchema,
} from "../../llm/providers/openai-structured";
import { addUsage, noUsage } from "../../llm/usage";
import {
  BudgetExhaustedError,
  noteText,
  type ExtractionContext,
  type ExtractionUsage,
  type Extractor,
  type NoteExtraction,
  type NoteForExtraction,
} from "../extraction";
import { ExtractionAssembler } from "./llm/assemble";
import { ExtractionFailedError } from "./llm/errors";
import { chunkMessage, systemPromptFor, type AnswerForm } from "./llm/prompt";
import { describeIssues, knowledgeGraphJsonSchema, knowledgeGraphSchema, TOOL_DESCRIPTION, TOOL_NAME, type KnowledgeGraphAnswer } from "./llm/schema";

export { OpenAiRequestError } from "../../llm/providers/openai";

// Room for the answer inside the context: a quarter of it, at most what 30 concepts and 60 relations need.
const MAX_OUTPUT_TOKENS = 4_096;
// What the estimate may miss of a server's real tokenizer.
const SAFETY = 0.9;
// The share of the context the existing concept names may take, at most.
const EXISTING_SHARE = 0.15;
const MIN_CHUNK_TOKENS = 64;

const SCHEMA: StructuredSchema = { name: TOOL_NAME, description: TOOL_DESCRIPTION, jsonSchema: knowledgeGraphJsonSchema() };

// json_object needs the schema (and the word "json") in the prompt; plain text too.
const ANSWER_FORM: Record<StructuredOutputStep, AnswerForm> = { tools: "tool", json_schema: "json", json_object: "json_with_schema", text: "json_with_schema" };

const tokens = (text: string) => estimateTextTokens(text, OPENAI_COMPATIBLE_TOKENS);

/**
 * Extracts concepts and relations through any OpenAI-compatible Chat Completions server, with the
 * prompt and schema the Anthropic extractor uses. Each chunk is asked in the best structured-output
 * form the server accepts (stepping down on a known refusal and remembering the step per server and
 * model), its answer validated and asked for once more with the problem, and every request kept
 * inside OPENAI_CONTEXT_TOKENS, since local servers cut longer prompts without a word.
 */
export function createOpenAiExtractor(settings: OpenAiSettings): Extractor {
  const client = createOpenAiClient(settings);
  const maxOutput = Math.min(MAX_OUTPUT_TOKENS, Math.floor(settings.contextTokens / 4));
  let lastStep: StructuredOutputStep = rememberedStep(settings.baseURL, settings.model) ?? "tools";

  const startStep = () => rememberedStep(settings.baseURL, settings.model) ?? "tools";

  function requestFor(step: StructuredOutputStep, userMessage: string): ChatRequest {
    const messages: ChatCompletionMessageParam[] = [
      { role: "system", content: systemPromptFor(ANSWER_FORM[step]) },
      { role: "user", content: userMessage },
    ];
    return { messages, max_tokens: maxOutput, ...structuredFields(step, SCHEMA) };
  }

  // The request without the note (prompt, schema) for each step: the largest bounds every chunk.
  const fixedTokens = new Map<StructuredOutputStep, number>();
  const fixed = (step: StructuredOutputStep) => {
    let value = fixedTokens.get(step);
    if (value === undefined) {
      value = tokens(JSON.stringify(requestFor(step, "")));
      fixedTokens.set(step, value);
    }
    return value;
  };
  const largestFixed = () => Math.max(fixed("tools"), fixed("json_schema"), fixed("json_object"));

  // Existing names (and names found in earlier chunks) get at most this many tokens of each request.
  const existingTokens = Math.floor(settings.contextTokens * EXISTING_SHARE);

  /** How many characters of names fit in `existingTokens`, measured on the names at hand (CJK names cost more). */
  function existingChars(names: string[]): number {
    const sample = names.slice(0, 400).join("\n");
    const perChar = sample.length > 0 ? Math.max(1 / OPENAI_COMPATIBLE_TOKENS.otherCharsPerToken, tokens(JSON.stringify(sample)) / sample.length) : OPENAI_COMPATIBLE_TOKENS.cjkTokensPerChar;
    return Math.floor(existingTokens / perChar);
  }

  function messageFor(note: NoteForExtraction, chunk: string, part: { index: number; count: number }, existing: string[], foundEarlier: string[], step: StructuredOutputStep): string {
    const chars = existingChars([...foundEarlier, ...existing]);
    return chunkMessage(note, chunk, part, existing, foundEarlier, { answer: ANSWER_FORM[step], existingChars: chars });
  }

  /** The note's text in chunks whose requests, answer included, fit the context bound. */
  function chunksOf(note: NoteForExtraction, text: string): TextChunk[] {
    const around = tokens(JSON.stringify(chunkMessage(note, "", { index: 0, count: 2 }, [], [], { answer: "json_with_schema" })));
    const room = Math.max(MIN_CHUNK_TOKENS, Math.floor((settings.contextTokens - maxOutput - largestFixed() - around - existingTokens) * SAFETY));
    let maxChars = Math.max(50, Math.floor(room * OPENAI_COMPATIBLE_TOKENS.otherCharsPerToken));
    for (;;) {
      const chunks = splitIntoChunks(text, maxChars);
      const largest = Math.max(...chunks.map((chunk) => tokens(JSON.stringify(chunk.text))));
      if (largest <= room || maxChars <= 50) return chunks;
      maxChars = Math.max(50, Math.floor((maxChars * room) / largest));
    }
  }

  async function extract(note: NoteForExtraction, context: ExtractionContext): Promise<NoteExtraction> {
    const text = noteText(note);
    const usage: ExtractionUsage = noUsage();
    if (text.trim() === "") return { concepts: [], relations: [], usage };

    const chunks = chunksOf(note, text);
    const assembler = new ExtractionAssembler(note.title.length, context.existingConcepts);
    for (const [index, chunk] of chunks.entries()) {
      if (chunk.text.trim() === "") continue;
      const part = { index, count: chunks.length };
      const answer = await extractChunk(note, (step) => messageFor(note, chunk.text, part, context.existingConcepts, assembler.names, step), usage, context);
      assembler.add(chunk, answer);
    }
    return { ...assembler.result(), usage };
  }

  async function extractChunk(
    note: NoteForExtraction,
    userMessage: (step: StructuredOutputStep) => string,
    usage: ExtractionUsage,
    { signal, budget }: ExtractionContext,
  ): Promise<KnowledgeGraphAnswer> {
    let step = startStep();
    let problem: string | null = null;
    for (;;) {
      const reminder = problem === null ? "" : `\n\nA previous answer to this request was unusable (${problem}). Answer once more, complete and matching the schema, with fewer and shorter items if needed.`;
      const body = requestFor(step, userMessage(step) + reminder);
      const reserved = tokens(JSON.stringify(body));
      if (budget && !budget.take(reserved)) throw new BudgetExhaustedError(usage);
      let completion;
      try {
        completion = await client.complete(body, { signal, isRefusal: (status, message) => isRefusalOf(step, status, message) });
      } catch (error) {
        budget?.settle(reserved, 0, false);
        if (signal?.aborted) throw signal.reason ?? error;
        const lower = error instanceof OpenAiRequestError && error.status !== undefined && isRefusalOf(step, error.status, error.serverMessage) ? nextStep(step) : null;
        if (lower) {
          // The refused request cost nothing; the same question is asked in the next form.
          step = lower;
          rememberStep(settings.baseURL, settings.model, step);
          lastStep = step;
          continue;
        }
        if (error instanceof OpenAiRequestError) error.usage = { ...usage };
        throw error;
      }
      const read = readStructuredAnswer(completion, step, TOOL_NAME);
      const spent = completionUsage(completion, body, read.text);
      budget?.settle(reserved, spent.input_tokens, true);
      addUsage(usage, spent);

      const parsed = read.ok ? knowledgeGraphSchema.safeParse(read.value) : null;
      if (parsed?.success) {
        rememberStep(settings.baseURL, settings.model, step);
        lastStep = step;
        return parsed.data;
      }
      const why = parsed ? describeIssues(parsed.error) : (read as { problem: string }).problem;
      if (problem !== null) {
        throw new ExtractionFailedError(`the model's answer did not match the schema: ${why}`, { noteId: note.id, usage });
      }
      problem = why;
    }
  }

  /** What `extract` would send for the note on the first try, in the form the server last accepted: no call. */
  function estimate(note: NoteForExtraction, existingConcepts: string[]): ExtractionUsage {
    const usage = noUsage();
    const text = noteText(note);
    if (text.trim() === "") return usage;
    const step = startStep();
    const chunks = chunksOf(note, text);
    for (const [index, chunk] of chunks.entries()) {
      if (chunk.text.trim() === "") continue;
      const userMessage = messageFor(note, chunk.text, { index, count: chunks.length }, existingConcepts, [], step);
      usage.llm_calls += 1;
      usage.input_tokens += tokens(JSON.stringify(requestFor(step, userMessage)));
      // An answer restates the chunk's concepts with short quotes: about half its size, plus the JSON around it.
      usage.output_tokens += Math.min(maxOutput, 150 + Math.ceil(tokens(chunk.text) / 2));
    }
    return usage;
  }

  return { name: "openai", extract, estimate, structuredOutput: () => lastStep };
}
