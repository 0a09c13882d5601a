/** One message of a `text/event-stream`: an event, or a comment line such as `: keep-alive`. */
export interface StreamMessage {
  id?: number;
  event?: string;
  data?: any;
  comment?: string;
}

export interface EventStreamReader {
  response: Response;
  /** Every message so far, in arrival order. */
  messages: StreamMessage[];
  /** The first message after those already taken by `next` that matches; waits up to `timeoutMs`. */
  next(matches?: (message: StreamMessage) => boolean, timeoutMs?: number): Promise<StreamMessage>;
  /** The first message ever received that matches, whatever `next` took already; waits up to `timeoutMs`. */
  seen(matches: (message: StreamMessage) => boolean, timeoutMs?: number): Promise<StreamMessage>;
  /** Waits until the server has ended the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens GET /api/events (or any SSE URL) with fetch and parses its messages as they arrive. */
export async function openEventStream(url: string, headers: Record<string, string> = {}): Promise<EventStreamReader> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const messages: StreamMessage[] = [];
  let cursor = 0;
  let waiters: (() => void)[] = [];
  const wake = () => {
    const current = waiters;
    waiters = [];
    for (const waiter of current) waiter();
  };
  const ended = (async () => {
    if (!response.body || !response.ok) return;
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          messages.push(parseMessage(buffer.slice(0, end)));
          buffer = buffer.slice(end + 2);
        }
        wake();
      }
    } catch {
      // aborted by close()
    }
  })().finally(wake);
  let done = false;
  void ended.then(() => (done = true));

  /** `from` is where to look from; by default the reader's own cursor, which `next` moves past what it returns. */
  async function next(matches: (message: StreamMessage) => boolean = () => true, timeoutMs = 30_000, from?: { at: number }) {
    const position = from ?? { get at() { return cursor; }, set at(value: number) { cursor = value; } };
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (position.at < messages.length) {
        const message = messages[position.at++]!;
        if (matches(message)) return message;
      }
      if (done) throw new Error(`the stream ended before the expected message; got ${JSON.stringify(messages)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no expected message within ${timeoutMs} ms; got ${JSON.stringify(messages)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  return {
    response,
    messages,
    ended,
    next: (matches, timeoutMs) => next(matches, timeoutMs),
    seen: (matches, timeoutMs) => next(matches, timeoutMs, { at: 0 }),
    close: () => controller.abort(),
  };
}

function parseMessage(block: string): StreamMessage {
  const message: StreamMessage = {};
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) message.comment = line.slice(1).trim();
    else if (line.startsWith("id: ")) message.id = Number(line.slice(4));
    else if (line.startsWith("event: ")) message.event = line.slice(7);
    else if (line.startsWith("data: ")) message.data = JSON.parse(line.slice(6));
  }
  return message;
}
