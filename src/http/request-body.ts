import { readCappedText } from "../read-capped-text";
import { PayloadTooLargeError } from "./error-response";

/**
 * Reads a request body as text, refusing it as soon as it passes `limitBytes` — by its declared
 * length up front, or while streaming for chunked bodies — so an oversize body is never buffered.
 */
export async function readBodyText(request: Request, limitBytes: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (declared > limitBytes) throw new PayloadTooLargeError(limitBytes);
  // A declared length within the limit is all the server will read (it ends the body there): read it whole.
  if (Number.isFinite(declared)) return request.text();
  return readCappedText(request.body, limitBytes, () => new PayloadTooLargeError(limitBytes));
}

export function mediaType(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/** The body's Content-Length, or null when it streams without one (chunked). */
export function declaredLength(request: Request): number | null {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : null;
}
