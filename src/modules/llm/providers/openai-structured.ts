import type { ChatCompletion } from "openai/resources/chat/completions";
import { parseJsonLoosely } from "../answer-text";
import type { ChatRequest } from "./openai";
import { findRefusal, type RefusedFeature } from "./openai-refusals";

/**
 * How an OpenAI-compatible server is made to answer in a schema, best first: a forced function
 * call, then `response_format` json_schema, then json_object (the schema in the prompt), then plain
 * text read tolerantly. A server that refuses one form (KNOWN_REFUSALS) is asked in the next.
 */
export const STRUCTURED_OUTPUT_STEPS = ["tools", "json_schema", "json_object", "text"] as const;
export type StructuredOutputStep = (typeof STRUCTURED_OUTPUT_STEPS)[number];

export interface StructuredSchema {
  name: string;
  description: string;
  jsonSchema: Record<string, unknown>;
}

export function nextStep(step: StructuredOutputStep): StructuredOutputStep | null {
  return STRUCTURED_OUTPUT_STEPS[STRUCTURED_OUTPUT_STEPS.indexOf(step) + 1] ?? null;
}

/** The request fields of one step; plain text has none. */
export function structuredFields(step: StructuredOutputStep, schema: StructuredSchema): Partial<ChatRequest> {
  switch (step) {
    case "tools":
      return {
        tools: [{ type: "function", function: { name: schema.name, description: schema.description, parameters: schema.jsonSchema } }],
        tool_choice: { type: "function", function: { name: schema.name } },
      };
    case "json_schema":
      // Not strict: OpenAI's strict mode rejects keywords (maxLength, default) that the others use to constrain decoding.
      return { response_format: { type: "json_schema", json_schema: { name: schema.name, description: schema.description, schema: schema.jsonSchema, strict: false } } };
    case "json_object":
      return { response_format: { type: "json_object" } };
    case "text":
      return {};
  }
}

const FEATURE: Record<StructuredOutputStep, RefusedFeature | null> = { tools: "tools", json_schema: "json_schema", json_object: "json_object", text: null };

/** Whether an error answer to a request of this step is a known refusal of the step's form. */
export function isRefusalOf(step: StructuredOutputStep, status: number, message: string): boolean {
  const feature = FEATURE[step];
  return feature !== null && findRefusal(feature, status, message) !== undefined;
}

export type StructuredAnswer =
  | { ok: true; value: unknown; text: string }
  | { ok: false; problem: string; text: string };

/**
 * The JSON value of an answer, not yet validated: the forced call's arguments, or the message's
 * text (reasoning blocks, code fences and prose around the object tolerated). A server that ignored
 * tool_choice and answered in text is read from its text.
 */
export function readStructuredAnswer(completion: ChatCompletion, step: StructuredOutputStep, toolName: string): StructuredAnswer {
  const choice = completion.choices?.[0];
  if (!choice?.message) return { ok: false, problem: "the answer had no message", text: "" };
  const call = step === "tools" ? choice.message.tool_calls?.find((item) => item.type === "function" && item.function.name === toolName) : undefined;
  const text = call && call.type === "function" ? call.function.arguments : (choice.message.content ?? "");
  if (choice.finish_reason === "length") return { ok: false, problem: "the answer was cut off at the output token limit", text };
  const parsed = parseJsonLoosely(text);
  return parsed.ok ? { ok: true, value: parsed.value, text } : { ok: false, problem: parsed.problem, text };
}

// The step that worked, per server and model, for as long as the process runs: later requests start there.
const remembered = new Map<string, StructuredOutputStep>();
const memoryKey = (baseURL: string, model: string) => `${baseURL.replace(/\/+$/, "")}\u0000${model}`;

export function rememberedStep(baseURL: string, model: string): StructuredOutputStep | undefined {
  return remembered.get(memoryKey(baseURL, model));
}

export function rememberStep(baseURL: string, model: string, step: StructuredOutputStep): void {
  remembered.set(memoryKey(baseURL, model), step);
}
