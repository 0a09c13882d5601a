import { z } from "zod";

/** What the worker asks the OCR process: read the picture stored at `path`. */
export interface OcrRequest {
  id: number;
  path: string;
}

/**
 * What the OCR process says: it is ready (models loaded) or could not load them; a picture's lines
 * in reading order; a picture it cannot read (not a picture, too large, corrupt: the picture's
 * fault, for good); or an error of its own (worth another try).
 */
export type OcrReply =
  | { type: "ready"; pid: number }
  | { type: "failed"; error: string }
  | { type: "read"; id: number; lines: string[]; ms: number; rss: number }
  | { type: "unreadable" | "error"; id: number; error: string; rss: number };

const request = z.object({ id: z.number().int(), path: z.string().min(1) });

const reply = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready"), pid: z.number().int() }),
  z.object({ type: z.literal("failed"), error: z.string() }),
  z.object({ type: z.literal("read"), id: z.number().int(), lines: z.array(z.string()), ms: z.number(), rss: z.number() }),
  z.object({ type: z.enum(["unreadable", "error"]), id: z.number().int(), error: z.string(), rss: z.number() }),
]);

export function parseOcrRequest(message: unknown): OcrRequest | null {
  const parsed = request.safeParse(message);
  return parsed.success ? parsed.data : null;
}

export function parseOcrReply(message: unknown): OcrReply | null {
  const parsed = reply.safeParse(message);
  return parsed.success ? parsed.data : null;
}
