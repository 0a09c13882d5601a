/**
 * Removes the reasoning that R1/Qwen3-style models put before their answer when the server does not
 * split it out: `<think>…</think>` blocks, and a lone leading `…</think>` that some builds emit
 * without the opening tag. An unclosed `<think>` means the answer was cut off inside it: nothing is left.
 */
export function stripThinking(text: string): string {
  let rest = text.replace(/<think>[\s\S]*?<\/think>/gi, "");
  const lone = rest.search(/<\/think>/i);
  if (lone >= 0) rest = rest.slice(lone + "</think>".length);
  const open = rest.search(/<think>/i);
  if (open >= 0) rest = rest.slice(0, open);
  return rest.trim();
}

export type LooseJson = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * The JSON value in a model's text answer, tolerating what models wrap around it: reasoning blocks,
 * a Markdown code fence, or prose before and after the object. JSON.parse does the parsing; this
 * only finds where the object is.
 */
export function parseJsonLoosely(text: string): LooseJson {
  const answer = stripThinking(text);
  if (answer === "") return { ok: false, problem: "the answer was empty" };
  const candidates = [answer];
  const fenced = /```(?:json)?[ \t]*\n([\s\S]*?)\n?```/i.exec(answer);
  if (fenced) candidates.push(fenced[1]!.trim());
  const first = answer.indexOf("{");
  const last = answer.lastIndexOf("}");
  if (first >= 0 && last > first) candidates.push(answer.slice(first, last + 1));
  for (const candidate of candidates) {
    try {
      return { ok: true, value: JSON.parse(candidate) };
    } catch {
      // try the next reading
    }
  }
  return { ok: false, problem: "the answer was not a JSON object" };
}
