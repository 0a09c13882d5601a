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
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > limitBytes) {
      await reader.cancel().catch(() => {});
      throw new AnswerTooLargeError(limitBytes);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
