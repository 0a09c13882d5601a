/**
 * A body read as text, refused with `tooLarge()` once more than `limitBytes` have arrived (what is
 * counted is what arrives, after any decompression): an oversize body is never held whole.
 */
export async function readCappedText(body: ReadableStream<Uint8Array> | null, limitBytes: number, tooLarge: () => Error): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > limitBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
