// `Ask your notes`: POST /api/ask streamed (Accept: text/event-stream); the answer is written into the
// `Answer` region as it arrives, its citations (or, without an LLM, the passages) are links that open
// the note with the quote marked, and the concepts the question named are lit in the graph.
import { readToken } from "./session";
import { byId, make } from "./dom";

interface Cited {
  note_id: number;
  title: string;
  start: number;
  end: number;
  quote: string;
}

interface Passage {
  note_id: number;
  title: string;
  start: number;
  end: number;
  text: string;
  /** The page of an imported document the passage is on (`[p. N]`), else null. */
  page: string | null;
}

interface AskResult {
  answer: string | null;
  passages: Passage[];
  citations: Cited[];
  concepts: { id: number; label: string }[];
  error: string | null;
}

export function setUpAsk(options: { openNote(id: number, quote: string): void; showConcepts(ids: number[]): void }): { reset(): void } {
  const form = byId<HTMLFormElement>("ask-form");
  const input = byId<HTMLInputElement>("ask");
  const region = byId("answer");
  const text = byId("answer-text");
  const list = byId<HTMLOListElement>("answer-citations");
  const note = byId("answer-note");
  let asked = 0;
  // The passages of the answer being written: a citation's page is that of the passage it quotes.
  let passages: Passage[] = [];

  const reset = () => {
    asked++;
    input.value = "";
    region.hidden = true;
  };

  const link = (label: string, cited: { note_id: number; quote: string }, title: string) => {
    const anchor = make("a", label);
    anchor.href = `#note-${cited.note_id}`;
    anchor.title = `Open “${title}”`;
    anchor.addEventListener("click", (event) => {
      event.preventDefault();
      options.openNote(cited.note_id, cited.quote);
    });
    return anchor;
  };

  function addCitation(n: number, cited: Cited) {
    const item = make("li");
    item.value = n;
    item.append(link(cited.title, cited, cited.title));
    const page = passages.find((passage) => passage.note_id === cited.note_id && passage.start <= cited.start && cited.start < passage.end)?.page;
    if (page) item.append(" ", make("span", `p. ${page}`, "answer-page"));
    item.append(make("q", cited.quote.length > 160 ? `${cited.quote.slice(0, 159)}…` : cited.quote));
    list.append(item);
  }

  function showPassages(shown: Passage[]) {
    passages = shown;
    list.replaceChildren();
    shown.forEach((passage, index) => addCitation(index + 1, { note_id: passage.note_id, title: passage.title, start: passage.start, end: passage.end, quote: passage.text }));
  }

  async function ask() {
    const question = input.value.trim();
    if (!question) return;
    const attempt = ++asked;
    region.hidden = false;
    text.textContent = "Looking through your notes…";
    list.replaceChildren();
    passages = [];
    note.textContent = "";
    let written = "";
    let cited = false;
    const headers: Record<string, string> = { accept: "text/event-stream", "content-type": "application/json" };
    const token = readToken();
    if (token) headers.authorization = `Bearer ${token}`;
    try {
      const response = await fetch("/api/ask", { method: "POST", headers, body: JSON.stringify({ question }), credentials: "omit", cache: "no-store" });
      if (!response.ok || !response.body) {
        const body = (await response.json().catch(() => undefined)) as { message?: string } | undefined;
        if (attempt === asked) text.textContent = body?.message ?? `The question could not be asked (${response.status}).`;
        return;
      }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffered = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done || attempt !== asked) break;
        buffered += value;
        let end: number;
        while ((end = buffered.indexOf("\n\n")) >= 0) {
          const frame = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (!event || data === undefined) continue;
          const payload = JSON.parse(data);
          if (event === "passages") {
            options.showConcepts((payload.concepts as { id: number }[]).map((concept) => concept.id));
            text.textContent = payload.passages.length ? "" : "None of your notes match the question.";
            showPassages(payload.passages);
          } else if (event === "delta") {
            if (!cited) list.replaceChildren();
            cited = true;
            written += payload.text;
            text.textContent = written;
          } else if (event === "citation") {
            addCitation(payload.n, payload);
          } else if (event === "done") {
            const result = payload as AskResult;
            if (result.answer === null) {
              text.textContent = result.passages.length ? "The passages of your notes that answer it:" : "None of your notes match the question.";
              showPassages(result.passages);
            }
            if (result.error) note.textContent = `No answer was written: ${result.error}`;
          } else if (event === "error") {
            text.textContent = "The answer could not be finished.";
          }
        }
      }
    } catch {
      if (attempt === asked) text.textContent = "The server could not be reached.";
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void ask();
  });
  return { reset };
}
