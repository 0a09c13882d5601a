// `Search by meaning` in Settings: GET /api/search/status — the embeddings model, how many of the
// person's notes are embedded and how many wait — or, on a server without embeddings, that it is off
// and which variables turn it on.
import { get } from "../api";
import { button, byId, make } from "../dom";
import { attempt, messageLine } from "../forms";
import type { Region } from "./settings-view";

interface SearchStatus {
  mode: "hybrid" | "lexical";
  model: string | null;
  dimensions: number | null;
  notes_total: number;
  notes_embedded: number;
  pending: number;
  error: string | null;
}

const count = new Intl.NumberFormat("en");
const FOLLOW_MS = 3000;

export function searchStatusRegion(): Region {
  const section = byId("settings-search");
  const body = make("div", undefined, "search-status");
  body.setAttribute("aria-live", "polite");
  const message = messageLine();
  const again = button("Check again", () => void attempt(again, message, load), "quiet");
  again.hidden = true;
  section.append(body, message, again);
  let generation = 0;

  async function load() {
    const mine = ++generation;
    const status = await get<SearchStatus>("/api/search/status");
    if (mine !== generation) return;
    body.replaceChildren(...(status.model === null ? off() : on(status)));
    again.hidden = false;
    // While notes wait to be embedded, the counts follow them as long as Settings is on show.
    if (status.model !== null && status.pending > 0) setTimeout(() => void followPending(mine), FOLLOW_MS);
  }

  async function followPending(after: number) {
    if (after !== generation || section.offsetParent === null) return;
    await attempt(null, message, load);
  }

  return {
    async load() {
      await attempt(null, message, load);
    },
    reset() {
      generation++;
      body.replaceChildren();
      message.textContent = "";
      again.hidden = true;
    },
  };
}

function off(): HTMLElement[] {
  const line = make("p");
  line.append(
    make("strong", "Off"),
    ": search by meaning is off on this server (it has no embeddings model), so searches and Ask match your words only. Whoever runs the service turns it on by setting ",
    make("code", "EMBEDDINGS_BASE_URL"),
    " (an OpenAI-compatible embeddings server: OpenAI, Ollama, vLLM, …) and ",
    make("code", "EMBEDDINGS_MODEL"),
    ", with ",
    make("code", "EMBEDDINGS_API_KEY"),
    " when that server asks for one (",
    make("code", "EMBEDDINGS_DIMENSIONS"),
    " and ",
    make("code", "EMBEDDINGS_BATCH"),
    " are optional), and restarting it.",
  );
  return [line];
}

function on(status: SearchStatus): HTMLElement[] {
  const lead = make("p");
  const ready = status.mode === "hybrid";
  lead.append(make("strong", "On"), ready ? ": searches match by meaning as well as by words." : ": searches match words only until your notes are embedded in this model.");
  const facts = make("dl", undefined, "facts");
  const add = (term: string, value: string) => facts.append(make("dt", term), make("dd", value));
  add("Model", status.model ?? "");
  if (status.dimensions !== null) add("Dimensions", count.format(status.dimensions));
  const counts = make("p", `${count.format(status.notes_embedded)} of ${count.format(status.notes_total)} notes embedded, ${count.format(status.pending)} pending${status.pending ? " (embedded in the background, within seconds to minutes)" : ""}.`, "counts");
  const shown = [lead, facts, counts];
  if (status.error) shown.push(make("p", `Embedding stopped: ${status.error}`, "error"));
  return shown;
}
