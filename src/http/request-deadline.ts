import { log } from "../log";
import { edgeError } from "./error-response";

/** The contract's bound: every JSON request is answered within 30 s, by whatever path it takes. */
export const REQUEST_DEADLINE_MS = 30_000;

/**
 * The handler's response, or past the deadline a generic 500 in the contract's error body. The
 * late work is not cancelled (a procedure cannot be), but a late streamed body is.
 */
export async function answerWithin(deadlineMs: number, request: Request, handle: () => Promise<Response>): Promise<Response> {
  const answer = handle();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), deadlineMs);
  });
  try {
    const first = await Promise.race([answer, deadline]);
    if (first !== "late") return first;
  } finally {
    clearTimeout(timer);
  }
  log.error(`${request.method} ${new URL(request.url).pathname} got no answer within ${deadlineMs} ms`);
  answer.then((late) => late.body?.cancel(), () => {});
  return edgeError("INTERNAL_SERVER_ERROR", "Internal server error");
}
