/** What LLM requests cost: answered requests and their tokens, as the providers count them. */
export interface LlmUsage {
  llm_calls: number;
  input_tokens: number;
  output_tokens: number;
  /** True when a server sent no `usage` and the tokens were estimated from the text. */
  estimated?: boolean;
}

export const noUsage = (): LlmUsage => ({ llm_calls: 0, input_tokens: 0, output_tokens: 0 });

export function addUsage(total: LlmUsage, usage: LlmUsage): void {
  total.llm_calls += usage.llm_calls;
  total.input_tokens += usage.input_tokens;
  total.output_tokens += usage.output_tokens;
  if (usage.estimated) total.estimated = true;
}
