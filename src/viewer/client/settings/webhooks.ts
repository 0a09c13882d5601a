// `Webhooks` in Settings: `New webhook` (URL, the events to send, a description), the signing secret
// shown once, and per webhook `Send test`, `Turn off`/`Turn on`, `Delete` and its recent `Deliveries`
// (webhook-deliveries.ts). GET/POST/PATCH/DELETE /api/webhooks.
import { del, get, patch, post } from "../api";
import { button, byId, make } from "../dom";
import { attempt, copyButton, field, input, messageLine } from "../forms";
import type { Region } from "./settings-view";
import { setUpDeliveries } from "./webhook-deliveries";

export const WEBHOOK_EVENTS = ["note.created", "note.updated", "note.deleted", "task.completed", "task.failed", "graph.build.completed", "graph.build.failed"] as const;

export interface Webhook {
  id: number;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

export function webhooksRegion(): Region {
  const section = byId("settings-webhooks");
  const intro = make("p", "A webhook POSTs a signed JSON message to your URL when a note changes, an import ends or a graph build ends.", "hint");
  const open = button("New webhook", () => openForm());
  const actions = make("div", undefined, "actions");
  actions.append(open);
  const formSlot = make("div");
  const secretSlot = make("div");
  const message = messageLine();
  const summary = make("p", "", "hint");
  summary.setAttribute("aria-live", "polite");
  const list = make("ul", undefined, "list webhooks");
  list.setAttribute("aria-label", "Your webhooks");
  section.append(intro, actions, formSlot, secretSlot, message, summary, list);
  let generation = 0;
  let count = 0;

  function openForm() {
    const form = make("form");
    form.noValidate = true; // the server's refusal, in its words, rather than the browser's bubble
    const heading = make("h4", "New webhook");
    heading.id = "new-webhook-title";
    form.setAttribute("aria-labelledby", heading.id);
    const url = field("URL", input("url", { inputmode: "url" }), "Where deliveries are POSTed, e.g. https://hooks.example.com/rhizome");
    url.control.placeholder = "https://";
    const events = make("fieldset", undefined, "checks");
    events.append(make("legend", "Events"));
    for (const name of WEBHOOK_EVENTS) {
      const label = make("label");
      const box = make("input");
      box.type = "checkbox";
      box.value = name;
      label.append(box, name);
      events.append(label);
    }
    const description = field("Description", input("text"), "What it is for (optional).");
    description.control.maxLength = 500;
    const line = messageLine();
    const create = make("button", "Create webhook");
    create.type = "submit";
    const buttons = make("div", undefined, "actions");
    buttons.append(create, button("Cancel", () => closeForm(), "quiet"));
    form.append(heading, url.row, events, description.row, line, buttons);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const chosen = Array.from(events.querySelectorAll<HTMLInputElement>("input:checked"), (box) => box.value);
      void attempt(create, line, async () => {
        const text = description.control.value.trim();
        const made = await post<Webhook & { secret: string }>("/api/webhooks", { url: url.control.value.trim(), events: chosen, ...(text && { description: text }) });
        closeForm();
        showSecret(made);
        // The form is gone: a list that cannot be read now says so in the region's own line.
        void attempt(null, message, load);
      });
    });
    formSlot.replaceChildren(form);
    open.hidden = true;
    url.control.focus();
  }

  function closeForm() {
    formSlot.replaceChildren();
    open.hidden = false;
  }

  function showSecret(hook: Webhook & { secret: string }) {
    const box = make("div", undefined, "once");
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", "Signing secret");
    const lead = make("p", `The signing secret of the webhook to ${hook.url}, shown only this once: copy it into the receiver now.`);
    const secret = make("code", hook.secret, "shown-once");
    secret.id = `webhook-${hook.id}-secret`;
    const how = make(
      "p",
      "Receivers check every delivery with it by the Standard Webhooks specification (standardwebhooks.com): the webhook-signature header is “v1,” and the base64 HMAC-SHA256, under the secret (base64 after whsec_), of webhook-id.webhook-timestamp.body. The Standard Webhooks libraries check it in one call.",
      "hint",
    );
    const buttons = make("div", undefined, "actions");
    buttons.append(copyButton(() => hook.secret, secret), button("Done", () => box.remove(), "quiet"));
    // Spaces around the secret keep it a word of its own in the region's text.
    box.append(lead, " ", secret, " ", buttons, how);
    secretSlot.replaceChildren(box);
  }

  async function load() {
    const mine = ++generation;
    const answer = await get<{ items: Webhook[] }>("/api/webhooks");
    if (mine !== generation) return;
    list.replaceChildren(...answer.items.map((hook) => item(hook)));
    count = answer.items.length;
    say();
  }

  function say() {
    summary.textContent = count === 0 ? "No webhooks yet." : `${count === 1 ? "1 webhook" : `${count} webhooks`} (at most 20).`;
  }

  function item(hook: Webhook): HTMLLIElement {
    const li = make("li", undefined, "webhook");
    li.dataset.webhook = String(hook.id);
    const address = make("strong", hook.url, "webhook-url");
    const events = make("small", `Events: ${hook.events.join(", ")}`);
    const state = make("p", "", `webhook-state ${hook.enabled ? "on" : "off"}`);
    state.append(make("strong", hook.enabled ? "On" : "Off"), hook.enabled ? ": deliveries are sent." : hook.disabled_reason ? `: turned off by the service (${hook.disabled_reason}).` : ": turned off; nothing is sent.");
    const line = messageLine();
    const deliveries = setUpDeliveries(hook.id);
    const test = button("Send test", () => void attempt(test, line, async () => {
      const queued = await post<{ event_id: string }>(`/api/webhooks/${hook.id}/test`);
      deliveries.await(queued.event_id);
    }));
    const toggle = button(hook.enabled ? "Turn off" : "Turn on", () => void attempt(toggle, line, async () => {
      const changed = await patch<Webhook>(`/api/webhooks/${hook.id}`, { enabled: !hook.enabled });
      const next = item(changed);
      li.replaceWith(next);
      next.querySelector<HTMLButtonElement>(".toggle")?.focus();
    }));
    toggle.classList.add("toggle");
    const remove = button("Delete", () => {
      if (!confirm(`Delete the webhook to ${hook.url}? Nothing more is sent to it, and its delivery log goes with it.`)) return;
      void attempt(remove, line, async () => {
        await del(`/api/webhooks/${hook.id}`);
        li.remove();
        count = Math.max(0, count - 1);
        say();
      });
    }, "danger");
    const buttons = make("div", undefined, "actions");
    buttons.append(test, toggle, remove);
    li.append(address, events);
    if (hook.description) li.append(make("p", hook.description, "webhook-description"));
    li.append(state, buttons, line, deliveries.section);
    return li;
  }

  return {
    async load() {
      await attempt(null, message, load);
    },
    reset() {
      generation++;
      closeForm();
      secretSlot.replaceChildren();
      list.replaceChildren();
      summary.textContent = "";
      message.textContent = "";
      count = 0;
    },
  };
}
