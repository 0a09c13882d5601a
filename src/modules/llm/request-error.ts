import type { LlmUsage } from "./usage";

/**
 * A provider refused or failed a request after the retries. `stopsBuild` when the setup itself is
 * wrong (key, model, base URL: 401, 403, 404): every later request would fail alike. Anything else
 * is the failure of this one piece of work. `usage` counts the requests answered before it.
 */
export class LlmRequestError extends Error {
  override name = "LlmRequestError";
  readonly status: number | undefined;
  readonly stopsBuild: boolean;
  usage: LlmUsage;

  constructor(message: string, options: { status?: number; stopsBuild: boolean; usage?: LlmUsage; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.status = options.status;
    this.stopsBuild = options.stopsBuild;
    this.usage = { ...(options.usage ?? { llm_calls: 0, input_tokens: 0, output_tokens: 0 }) };
  }
}
