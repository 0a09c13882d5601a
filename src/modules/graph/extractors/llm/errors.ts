import type { ExtractionUsage } from "../../extraction";

export { LlmRequestError } from "../../../llm/request-error";

/**
 * The model answered, twice, with something that is not a valid knowledge graph. The build records
 * the note as failed and goes on; `usage` counts every call spent on the note, the retry included.
 */
export class ExtractionFailedError extends Error {
  override name = "ExtractionFailedError";
  readonly noteId: number;
  readonly usage: ExtractionUsage;

  constructor(message: string, options: { noteId: number; usage: ExtractionUsage }) {
    super(message);
    this.noteId = options.noteId;
    this.usage = { ...options.usage };
  }
}
