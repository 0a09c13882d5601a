import type { CallBudget } from "./extraction";

/**
 * A build's cap on LLM calls and input tokens. Each call reserves one call and its estimated input
 * tokens before it is sent, so calls running in parallel never pass the call cap together; the
 * reservation is replaced by the real usage when the answer comes (or given back on a refusal).
 */
export function createCallBudget(options: {
  maxCalls: number | null;
  maxInputTokens: number | null;
  used: { calls: number; inputTokens: number };
}): CallBudget & { exhausted(): boolean } {
  let calls = options.used.calls;
  let inputTokens = options.used.inputTokens;
  let refused = false;
  return {
    take(estimate) {
      const overCalls = options.maxCalls !== null && calls + 1 > options.maxCalls;
      const overTokens = options.maxInputTokens !== null && inputTokens + estimate > options.maxInputTokens;
      if (overCalls || overTokens) {
        refused = true;
        return false;
      }
      calls += 1;
      inputTokens += estimate;
      return true;
    },
    settle(reserved, actual, answered) {
      if (!answered) calls -= 1;
      inputTokens += actual - reserved;
    },
    exhausted: () => refused,
  };
}
