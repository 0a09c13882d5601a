// Reads a streamed POST /api/ask: every server-sent event, in order, with its parsed data.
export interface AskEvent {
  event: string;
  data: any;
}

export async function askStreamed(baseUrl: string, token: string, body: unknown): Promise<{ status: number; contentType: string; events: AskEvent[]; text: string }> {
  const response = await fetch(`${baseUrl}/api/ask`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const events: AskEvent[] = [];
  if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    for (const frame of text.split("\n\n")) {
      const event = /^event: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (event && data !== undefined) events.push({ event, data: JSON.parse(data) });
    }
  }
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", events, text };
}
