import { readCappedText } from "../../read-capped-text";

/** A provider's answer past the caller's cap: refused as it streams in, never held whole. */
export class AnswerTooLargeError extends Error {
  override name = "AnswerTooLargeError";
  constructor(readonly limitBytes: number) {
    super(`the answer is larger than ${limitBytes / 1024 / 1024} MiB`);
  }
}

/**
 * A provider's answer as text, refused once it passes `limitBytes`: by its Content-Length up front,
 * else as it streams (what is counted is what arrives after decompression).
 */
export async function readAnswerText(response: Response, limitBytes: number): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? NaN);
  if (declared > limitBytes) {
    await response.body?.cancel().catch(() => {});
    throw new AnswerTooLargeError(limitBytes);
  }
  return readCappedText(response.body, limitBytes, () => new AnswerTooLargeError(limitBytes));
}
