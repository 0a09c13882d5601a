// `Feeds` (`/feeds`): a `Feed address` field with `Subscribe` (a feed, a site that names one, or a
// Bilibili space), the followed feeds (title, last fetched, last error, paused) each with
// `Refresh`, `Pause`/`Resume` and `Unsubscribe` (which asks first), `Import OPML` (a file picker)
// and `Export OPML` (a download). Pages of 100, `Show more` for the next.
import { ApiError, del, get, patch, post, request } from "../api";
import { button, byId, downloadResponse, make } from "../dom";
import { attempt, when } from "../forms";
import { readToken } from "../session";

interface Feed {
  id: number;
  url: string;
  title: string | null;
  site_url: string | null;
  kind: "rss" | "atom" | "json" | "bilibili";
  tags: string[];
  paused: boolean;
  last_fetched_at: string | null;
  next_fetch_at: string | null;
  last_error: string | null;
  items_seen: number;
  items_imported: number;
}
interface FeedPage {
  items: Feed[];
  total: number;
  page: number;
  pages: number;
}

const PAGE_SIZE = 100;
const KINDS: Record<Feed["kind"], string> = { rss: "RSS", atom: "Atom", json: "JSON Feed", bilibili: "Bilibili" };

export interface FeedsView {
  show(): void;
  reset(): void;
}

export function setUpFeeds(): FeedsView {
  const form = byId<HTMLFormElement>("subscribe-form");
  const address = byId<HTMLInputElement>("feed-address");
  const subscribe = byId<HTMLButtonElement>("subscribe");
  const message = byId("feeds-message");
  const summary = byId("feeds-summary");
  const list = byId<HTMLUListElement>("feeds");
  const more = byId("feeds-more");
  const importButton = byId<HTMLButtonElement>("import-opml");
  const file = byId<HTMLInputElement>("opml-file");
  const exportButton = byId<HTMLButtonElement>("export-opml");
  let total = 0;
  let generation = 0;

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void attempt(subscribe, message, async () => {
      const feed = await post<Feed>("/api/feeds", { url: address.value.trim() });
      address.value = "";
      await load();
      message.textContent = `Following “${feed.title ?? feed.url}”: its newest items are being imported.`;
    });
  });

  importButton.addEventListener("click", () => file.click());
  file.addEventListener("change", () => {
    const chosen = file.files?.[0];
    if (!chosen) return;
    void attempt(importButton, message, async () => {
      const result = await request<{ added: number; skipped: { url: string; reason: string }[] }>("POST", "/api/feeds/opml", { text: { body: await chosen.text(), type: "text/x-opml" } });
      await load();
      const skipped = result.skipped.length ? ` Skipped ${result.skipped.length}: ${result.skipped.slice(0, 5).map((entry) => `${entry.url} (${entry.reason})`).join("; ")}${result.skipped.length > 5 ? "; …" : ""}.` : "";
      message.textContent = `Added ${result.added === 1 ? "1 feed" : `${result.added} feeds`} from ${chosen.name}.${skipped}`;
    });
    file.value = "";
  });

  exportButton.addEventListener("click", () => void attempt(exportButton, message, downloadOpml));

  async function load(page = 1) {
    const mine = page === 1 ? ++generation : generation;
    const answer = await get<FeedPage>(`/api/feeds?page=${page}&size=${PAGE_SIZE}`);
    if (mine !== generation) return;
    if (page === 1) list.replaceChildren();
    total = answer.total;
    for (const feed of answer.items) list.append(row(feed));
    summary.textContent = total === 0 ? "You follow no feeds yet. Paste a feed's address, a site's, or a Bilibili space's above." : `You follow ${total === 1 ? "1 feed" : `${total} feeds`}.`;
    exportButton.disabled = total === 0;
    more.replaceChildren();
    if (answer.page < answer.pages) more.append(button("Show more", () => void attempt(null, message, () => load(page + 1)), "quiet"));
  }

  function row(feed: Feed): HTMLLIElement {
    const li = make("li", undefined, "feed-item");
    li.dataset.feedId = String(feed.id);
    fill(li, feed);
    return li;
  }

  function fill(li: HTMLLIElement, feed: Feed) {
    const title = make("strong", feed.title ?? feed.url);
    const address = make("small", `${KINDS[feed.kind]} · ${feed.url}`, "feed-url");
    const fetched = make("small", feed.last_fetched_at ? `Last fetched ${when(feed.last_fetched_at)}` : "Not fetched yet");
    const counts = make("small", `${feed.items_seen} items seen · ${feed.items_imported} imported${feed.tags.length ? ` · tags: ${feed.tags.join(", ")}` : ""}`);
    const parts: HTMLElement[] = [title, address, fetched, counts];
    if (feed.paused) parts.push(make("small", "Paused", "feed-paused"));
    if (feed.last_error) parts.push(make("small", `Last error: ${feed.last_error}`, "feed-error"));
    const line = make("p", "", "error");
    line.setAttribute("role", "alert");
    const refresh = button("Refresh", () => void attempt(refresh, line, async () => {
      fill(li, await post<Feed>(`/api/feeds/${feed.id}/refresh`));
      line.textContent = "Fetching now…";
      // The fetch runs in the background: its outcome is shown once it has had a moment.
      setTimeout(() => void get<Feed>(`/api/feeds/${feed.id}`).then((fresh) => li.isConnected && fill(li, fresh), () => {}), 3000);
    }));
    const pause = button(feed.paused ? "Resume" : "Pause", () => void attempt(pause, line, async () => fill(li, await patch<Feed>(`/api/feeds/${feed.id}`, { paused: !feed.paused }))), "quiet");
    const remove = button("Unsubscribe", () => {
      if (!confirm(`Stop following “${feed.title ?? feed.url}”? The notes made from it stay.`)) return;
      void attempt(remove, line, async () => {
        await del(`/api/feeds/${feed.id}`);
        li.remove();
        total = Math.max(0, total - 1);
        summary.textContent = total === 0 ? "You follow no feeds yet." : `You follow ${total === 1 ? "1 feed" : `${total} feeds`}.`;
      });
    }, "danger");
    const buttons = make("div", undefined, "actions");
    buttons.append(refresh, pause, remove);
    li.replaceChildren(...parts, buttons, line);
  }

  return {
    show() {
      message.textContent = "";
      void attempt(null, message, () => load());
    },
    reset() {
      generation++;
      list.replaceChildren();
      more.replaceChildren();
      summary.textContent = "";
      message.textContent = "";
      address.value = "";
      total = 0;
    },
  };
}

/** GET /api/feeds/opml with the token (a plain link could not send it), handed to the browser as a download. */
async function downloadOpml(): Promise<void> {
  const token = readToken();
  const response = await fetch("/api/feeds/opml", { headers: token ? { authorization: `Bearer ${token}` } : {}, credentials: "omit", cache: "no-store" });
  if (!response.ok) {
    const body = (await response.json().catch(() => undefined)) as { message?: string } | undefined;
    throw new ApiError(response.status, body?.message ?? `The export failed (${response.status})`);
  }
  await downloadResponse(response, "feeds.opml");
}
