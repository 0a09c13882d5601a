// A webhook's recent `Deliveries` (GET /api/webhooks/{id}/deliveries, newest first, one line per
// attempt): when, which event, which attempt, and the receiver's status or why there was none.
// After `Send test` it looks again every second or so until the test's delivery is there.
import { get } from "../api";
import { button, make } from "../dom";
import { failureText } from "../forms";

interface Delivery {
  id: number;
  event_id: string;
  type: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  created_at: string;
}

const SHOWN = 10;
const POLLS = 12;
const POLL_MS = 1000;
const time = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

export function setUpDeliveries(webhookId: number): { section: HTMLElement; await(eventId: string): void } {
  const section = make("section", undefined, "deliveries");
  const heading = make("h4", "Deliveries");
  heading.id = `webhook-${webhookId}-deliveries`;
  section.setAttribute("aria-labelledby", heading.id);
  const head = make("div", undefined, "deliveries-head");
  const refresh = button("Refresh", () => void load(), "quiet");
  head.append(heading, refresh);
  const hint = make("p", "Reading the deliveries…", "hint");
  hint.setAttribute("aria-live", "polite");
  const list = make("ul", undefined, "list delivery-list");
  list.setAttribute("aria-labelledby", heading.id);
  section.append(head, hint, list);
  let reading = 0;
  let waitingFor: string | null = null;

  /** Reads the newest attempts; true when `eventId` is among them. */
  async function load(eventId = waitingFor): Promise<boolean> {
    const mine = ++reading;
    try {
      const page = await get<{ items: Delivery[]; total: number }>(`/api/webhooks/${webhookId}/deliveries?size=${SHOWN}`);
      if (mine !== reading) return false;
      list.replaceChildren(...page.items.map(row));
      const found = eventId !== null && page.items.some((delivery) => delivery.event_id === eventId);
      if (found) waitingFor = null;
      hint.textContent = waitingFor
        ? "Test sent; waiting for its delivery…"
        : page.total === 0
          ? "No deliveries yet: press Send test, or wait for an event."
          : `The newest ${Math.min(SHOWN, page.total)} of ${page.total} attempts.`;
      return found;
    } catch (failure) {
      if (mine === reading) hint.textContent = `The deliveries could not be read: ${failureText(failure)}`;
      return false;
    }
  }

  function row(delivery: Delivery): HTMLLIElement {
    const ok = delivery.status_code !== null && delivery.status_code >= 200 && delivery.status_code < 300;
    const li = make("li", undefined, ok ? "delivered" : "undelivered");
    const outcome = delivery.status_code === null ? `no answer: ${delivery.error ?? "unknown error"}` : `${delivery.status_code}${delivery.error && !ok ? ` (${delivery.error})` : ""}`;
    li.append(
      make("span", `${delivery.type} · attempt ${delivery.attempt} · `),
      make("strong", outcome),
      make("small", `${time.format(new Date(delivery.created_at))} · ${delivery.duration_ms} ms`),
    );
    return li;
  }

  async function poll(eventId: string) {
    for (let tries = 0; tries < POLLS && waitingFor === eventId && section.isConnected; tries++) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (!section.isConnected || waitingFor !== eventId) return;
      if (await load(eventId)) return;
    }
    if (waitingFor === eventId) {
      waitingFor = null;
      hint.textContent = "The test has not been delivered yet (retries follow their delays): press Refresh later.";
    }
  }

  void load();
  return {
    section,
    await(eventId) {
      waitingFor = eventId;
      hint.textContent = "Test sent; waiting for its delivery…";
      void poll(eventId);
    },
  };
}
