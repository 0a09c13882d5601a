/**
 * The ways OpenAI-compatible servers say "I cannot answer in that form", as users reported them
 * (LLM-PROVIDERS.md §2). A request refused by one of these steps down to the next structured-output
 * form instead of failing; any other 400/422 is a real failure of that request.
 */
export type RefusedFeature = "tools" | "json_schema" | "json_object";

export interface KnownRefusal {
  server: string;
  refuses: RefusedFeature;
  statuses: number[];
  /** Matched against the error message the server sent. */
  message: RegExp;
}

export const KNOWN_REFUSALS: readonly KnownRefusal[] = [
  // {"error":{"message":"registry.ollama.ai/library/llama3:8b does not support tools", ...}}
  { server: "Ollama", refuses: "tools", statuses: [400], message: /does not support tools/i },
  // DeepSeek V4 with thinking on (the default); we send thinking:disabled, but a proxy may drop it.
  { server: "DeepSeek", refuses: "tools", statuses: [400], message: /thinking mode does not support this tool_choice|does not support this tool_choice/i },
  // <400> InternalError.Algo.InvalidParameter: The tool_choice parameter does not support being set to required or object in thinking mode
  { server: "Qwen (DashScope)", refuses: "tools", statuses: [400], message: /tool_choice parameter does not support being set to required or object/i },
  // Moonshot: tool_choice "required" (and a named tool) unsupported.
  { server: "Kimi", refuses: "tools", statuses: [400], message: /tool_choice.*(not support|unsupported|invalid)/i },
  // "auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set
  { server: "vLLM", refuses: "tools", statuses: [400], message: /tool choice requires --enable-auto-tool-choice/i },
  // 500 "tools param requires --jinja flag"; older builds 400/500 "Unsupported param: tools"
  { server: "llama.cpp", refuses: "tools", statuses: [400, 500], message: /tools param requires --jinja|unsupported param: tools/i },
  // Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.
  { server: "OpenAI", refuses: "json_schema", statuses: [400], message: /'response_format' of type 'json_schema' is not supported/i },
  // This response_format type is unavailable now
  { server: "DeepSeek", refuses: "json_schema", statuses: [400], message: /response_format type is unavailable/i },
  // {"error":"'response_format.type' must be 'json_schema' or 'text'"}
  { server: "LM Studio", refuses: "json_object", statuses: [400], message: /'response_format\.type' must be 'json_schema' or 'text'/i },
  // 'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.
  { server: "Qwen (DashScope)", refuses: "json_object", statuses: [400], message: /must contain the word 'json'/i },
  // Servers not listed above: a 400/422 that names the parameter is taken as its refusal.
  { server: "any other", refuses: "tools", statuses: [400, 422], message: /\btool_choice\b|\btools?\b/i },
  { server: "any other", refuses: "json_schema", statuses: [400, 422], message: /\bjson_schema\b|\bresponse_format\b/i },
  { server: "any other", refuses: "json_object", statuses: [400, 422], message: /\bjson_object\b|\bresponse_format\b/i },
];

/** The known refusal of `feature` that this error answer is, if any. */
export function findRefusal(feature: RefusedFeature, status: number, message: string): KnownRefusal | undefined {
  return KNOWN_REFUSALS.find((refusal) => refusal.refuses === feature && refusal.statuses.includes(status) && refusal.message.test(message));
}
