// `Access tokens`: `New token` (POST /api/auth/tokens: `Name`, a checkbox per scope, `Expires`, and
// `Code` when two-factor is on) shows the token once, with the lines that connect an agent; the
// live personal tokens, then `Connected apps` (connector and clipper grants), each with `Revoke`
// (DELETE /api/auth/tokens/{id}). All from GET /api/auth/tokens, read each time the view opens.
import { SCOPES, type Scope } from "../../../modules/tokens/scopes";
import { del, get, request } from "../api";
import { button, byId, make } from "../dom";
import { attempt, copyButton, field, input, messageLine, when } from "../forms";
import { agentSetup, mcpUrl } from "./agent-setup";
import { currentUser } from "./current-user";
import type { Region } from "./settings-view";

interface AccessToken {
  id: number;
  name: string;
  scopes: Scope[];
  prefix: string;
  kind: "personal" | "connector" | "clipper";
  client_name: string | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

interface CreatedToken {
  token: string;
  name: string;
  scopes: Scope[];
  expires_at: string | null;
}

/** `Expires`: days, or "" for a token that never expires (expires_in_days: null). */
const LIFETIMES: [string, string][] = [["7", "7 days"], ["30", "30 days"], ["90", "90 days"], ["365", "365 days"], ["", "Never"]];
const KINDS: Record<AccessToken["kind"], string> = { personal: "Access token", connector: "Agent connector", clipper: "Browser extension" };

export function accessTokensRegion(): Region {
  const section = byId("settings-tokens");
  const body = make("div");
  section.append(body);
  let generation = 0;

  async function load() {
    const mine = ++generation;
    const line = messageLine();
    const shown = make("div", undefined, "token-once-slot");
    const tokens = make("ul", undefined, "list");
    tokens.setAttribute("aria-label", "Your access tokens");
    const apps = make("ul", undefined, "list");
    apps.setAttribute("aria-label", "Connected apps");
    const appsHeading = make("h4", "Connected apps");
    const appsHint = make("p", "Agents (claude.ai, ChatGPT) and the browser extension you allowed through this service's authorization page.", "hint");
    const newToken = newTokenPart(shown, () => void refresh());
    body.replaceChildren(newToken, shown, line, make("h4", "Your tokens"), tokens, appsHeading, appsHint, apps);

    async function refresh() {
      await attempt(null, line, async () => {
        const { items } = await get<{ items: AccessToken[] }>("/api/auth/tokens");
        if (mine !== generation) return;
        const personal = items.filter((token) => token.kind === "personal");
        const granted = items.filter((token) => token.kind !== "personal");
        tokens.replaceChildren(...(personal.length ? personal.map((token) => tokenRow(token, line)) : [empty("No access tokens yet.")]));
        apps.replaceChildren(...(granted.length ? granted.map((token) => appRow(token, line)) : [empty("No connected apps.")]));
      });
    }
    await refresh();
  }

  /** The `New token` button, and the form it opens (built then, removed when done or cancelled). */
  function newTokenPart(shown: HTMLElement, created: () => void): HTMLElement {
    const part = make("div");
    const line = messageLine();
    const open = button("New token", () => void attempt(open, line, async () => {
      const mine = generation;
      const { totp_enabled } = await currentUser();
      if (mine !== generation) return;
      open.hidden = true;
      shown.replaceChildren();
      const form = tokenForm(totp_enabled, (token) => {
        close();
        void showOnce(shown, token);
        created();
      }, close);
      part.append(form);
      form.querySelector("input")?.focus();
      function close() {
        form.remove();
        open.hidden = false;
      }
    }));
    part.append(open, line);
    return part;
  }

  function tokenForm(totpEnabled: boolean, created: (token: CreatedToken) => void, cancelled: () => void): HTMLFormElement {
    const form = make("form", undefined, "token-form");
    form.setAttribute("aria-label", "New token");
    const name = field("Name", input("text", { required: true }), "What will use it: “Claude Code”, “backup script”.");
    name.control.maxLength = 64;
    const scopes = scopeChecks();
    const lifetime = make("select");
    for (const [value, label] of LIFETIMES) lifetime.append(new Option(label, value, value === "90", value === "90"));
    const expires = field("Expires", lifetime);
    const code = totpEnabled ? field("Code", input("text", { autocomplete: "one-time-code", required: true, inputmode: "numeric" }), "From your authenticator app, or a recovery code: a token outlives this login.") : null;
    const line = messageLine();
    const submit = make("button", "Create token");
    submit.type = "submit";
    const actions = make("div", undefined, "actions");
    actions.append(submit, button("Cancel", cancelled, "quiet"));
    form.append(name.row, scopes.group, expires.row, ...(code ? [code.row] : []), line, actions);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const chosen = scopes.chosen();
      if (chosen.length === 0) {
        line.textContent = "Choose at least one scope.";
        return;
      }
      const mine = generation;
      void attempt(submit, line, async () => {
        const json = {
          name: name.control.value.trim(),
          scopes: chosen,
          expires_in_days: lifetime.value === "" ? null : Number(lifetime.value),
          ...(code ? { code: code.control.value.trim() } : {}),
        };
        const answer = await request<CreatedToken>("POST", "/api/auth/tokens", { json, checksPassword: true });
        if (mine === generation) created(answer);
      });
    });
    return form;
  }

  /** The token, once, with its Copy and the agent set-up lines beside it. */
  async function showOnce(shown: HTMLElement, created: CreatedToken) {
    const mine = generation;
    const part = make("div", undefined, "token-once");
    const heading = make("h4", `Your new token “${created.name}”`);
    heading.id = "token-once-title";
    part.setAttribute("role", "group");
    part.setAttribute("aria-labelledby", heading.id);
    const note = make("p", `Shown once: copy it now, it cannot be shown again. ${created.expires_at ? `It expires ${when(created.expires_at)}` : "It never expires"}; it may ${created.scopes.join(", ")}.`, "hint");
    const token = make("pre", created.token, "shown-once");
    token.setAttribute("aria-label", "Token");
    const copy = make("div", undefined, "actions");
    copy.append(copyButton(() => created.token, token));
    const done = button("Done", () => part.remove(), "quiet");
    part.append(heading, note, token, copy, done);
    shown.replaceChildren(part);
    const url = await mcpUrl();
    if (mine === generation && part.isConnected) done.before(agentSetup(url, created.token));
  }

  function tokenRow(token: AccessToken, line: HTMLElement): HTMLLIElement {
    const li = make("li");
    const title = make("strong", token.name);
    title.append(" ", make("code", `rhz_${token.prefix}…`, "chip"));
    li.append(title, make("small", `Scopes: ${token.scopes.join(", ")}`), make("small", dates(token)), revoke(token, li, line));
    return li;
  }

  function appRow(token: AccessToken, line: HTMLElement): HTMLLIElement {
    const li = make("li");
    const title = make("strong", token.client_name ?? token.name);
    title.append(" ", make("span", KINDS[token.kind], "chip"));
    li.append(title, make("small", `Scopes: ${token.scopes.join(", ")}`), make("small", dates(token, "Connected")), revoke(token, li, line));
    return li;
  }

  function revoke(token: AccessToken, li: HTMLLIElement, line: HTMLElement): HTMLButtonElement {
    const revokeButton = button("Revoke", () => void attempt(revokeButton, line, async () => {
      await del(`/api/auth/tokens/${token.id}`);
      const list = li.parentElement;
      li.remove();
      if (list && !list.children.length) list.append(empty(list.getAttribute("aria-label") === "Connected apps" ? "No connected apps." : "No access tokens yet."));
    }), "danger");
    return revokeButton;
  }

  return {
    load,
    reset() {
      generation++;
      body.replaceChildren();
    },
  };
}

/** A fieldset of checkboxes, each named by its scope (the description beside it, as its description). */
function scopeChecks(): { group: HTMLFieldSetElement; chosen(): Scope[] } {
  const group = make("fieldset", undefined, "scopes");
  group.append(make("legend", "Scopes"));
  const boxes: [Scope, HTMLInputElement][] = [];
  for (const [scope, description] of Object.entries(SCOPES) as [Scope, string][]) {
    const box = input("checkbox");
    box.value = scope;
    box.id = `scope-${scope.replace(":", "-")}`;
    const label = make("label");
    label.append(box, make("span", scope, "scope-name"));
    const hint = make("small", description);
    hint.id = `${box.id}-hint`;
    box.setAttribute("aria-describedby", hint.id);
    const row = make("div", undefined, "scope");
    row.append(label, hint);
    group.append(row);
    boxes.push([scope, box]);
  }
  return { group, chosen: () => boxes.filter(([, box]) => box.checked).map(([scope]) => scope) };
}

function dates(token: AccessToken, made = "Created"): string {
  return `${made} ${when(token.created_at)} · ${token.expires_at ? `expires ${when(token.expires_at)}` : "never expires"} · last used ${when(token.last_used_at)}`;
}

function empty(text: string): HTMLLIElement {
  return make("li", text, "hint");
}
