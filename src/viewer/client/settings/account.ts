// `Account`: who is logged in and what the account has used (GET /api/auth/me), `Change password`
// (POST /api/auth/password: the other login sessions end) and `Delete account` (POST
// /api/auth/delete-account: everything goes, then the page is back at its login form).
import { request } from "../api";
import { button, byId, make } from "../dom";
import { attempt, field, input, messageLine, when } from "../forms";
import { forgetToken } from "../session";
import type { User } from "../types";
import type { Region } from "./settings-view";

const number = new Intl.NumberFormat("en");
const decimal = new Intl.NumberFormat("en", { maximumFractionDigits: 1 });

export function accountRegion(options: { deleted(): void }): Region {
  const section = byId("settings-account");
  const body = make("div");
  section.append(body);

  function load(user: User) {
    const line = messageLine();
    body.replaceChildren(summary(user), line, changePassword(user), deleteAccount(user));
  }

  return { load, reset: () => body.replaceChildren() };

  function summary(me: User): HTMLElement {
    const list = make("dl", undefined, "facts");
    const fact = (term: string, value: string) => list.append(make("dt", term), make("dd", value));
    fact("Username", me.username);
    fact("Member since", when(me.created_at));
    fact("LLM calls", `${number.format(me.usage.llm_calls)} (${number.format(me.usage.input_tokens)} tokens in, ${number.format(me.usage.output_tokens)} out)`);
    fact("Transcribed", `${decimal.format(me.usage.transcribed_seconds / 60)} minutes`);
    fact("Files", `${number.format(me.storage.files)} (${bytes(me.storage.bytes)})`);
    return list;
  }

  function changePassword(me: User): HTMLElement {
    const part = make("div");
    const heading = make("h4", "Change password");
    const open = button("Change password", () => {
      open.hidden = true;
      const form = make("form");
      form.setAttribute("aria-label", "Change password");
      const current = field("Current password", input("password", { autocomplete: "current-password", required: true }));
      const next = field("New password", input("password", { autocomplete: "new-password", required: true }), "8 to 128 characters. Your other login sessions end; access tokens and connected apps keep working.");
      next.control.minLength = 8;
      next.control.maxLength = 128;
      const code = me.totp_enabled ? field("Code", input("text", { autocomplete: "one-time-code", required: true, inputmode: "numeric" }), "From your authenticator app, or a recovery code.") : null;
      const line = messageLine();
      const save = make("button", "Change password");
      save.type = "submit";
      const cancel = button("Cancel", () => close(), "quiet");
      const actions = make("div", undefined, "actions");
      actions.append(save, cancel);
      form.append(current.row, next.row, ...(code ? [code.row] : []), line, actions);
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        void attempt(save, line, async () => {
          const json = { current_password: current.control.value, new_password: next.control.value, ...(code ? { code: code.control.value.trim() } : {}) };
          await request("POST", "/api/auth/password", { json, checksPassword: true });
          close();
          done.textContent = "Your password is changed. Your other login sessions have ended.";
        });
      });
      part.append(form);
      current.control.focus();
      function close() {
        form.remove();
        open.hidden = false;
      }
    }, "quiet");
    const done = make("p", "", "hint");
    done.setAttribute("role", "status");
    part.append(heading, open, done);
    return part;
  }

  function deleteAccount(me: User): HTMLElement {
    const part = make("div", undefined, "danger-zone");
    const heading = make("h4", "Delete account");
    const what = make(
      "p",
      "Deleting your account removes it and everything in it, at once and for good: your notes with their history and trash, pictures and files, imports, the knowledge graph, access tokens and connected apps, share links and webhooks. Export your notes first if you want to keep them.",
      "hint",
    );
    const open = button("Delete account", () => {
      open.hidden = true;
      const form = make("form");
      form.setAttribute("aria-label", "Delete account");
      const password = field("Password", input("password", { autocomplete: "current-password", required: true }));
      const code = me.totp_enabled ? field("Code", input("text", { autocomplete: "one-time-code", required: true, inputmode: "numeric" })) : null;
      const line = messageLine();
      const confirmDelete = make("button", "Delete account", "danger");
      confirmDelete.type = "submit";
      const cancel = button("Cancel", () => {
        form.remove();
        open.hidden = false;
      }, "quiet");
      const actions = make("div", undefined, "actions");
      actions.append(confirmDelete, cancel);
      form.append(make("p", `This is the last step: “${me.username}” and everything in it will be gone.`), password.row, ...(code ? [code.row] : []), line, actions);
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        void attempt(confirmDelete, line, async () => {
          const json = { password: password.control.value, ...(code ? { code: code.control.value.trim() } : {}) };
          await request("POST", "/api/auth/delete-account", { json, checksPassword: true });
          forgetToken();
          options.deleted();
        });
      });
      part.append(form);
      password.control.focus();
    }, "danger");
    part.append(heading, what, open);
    return part;
  }
}

function bytes(count: number): string {
  if (count < 1024) return `${count} bytes`;
  if (count < 1024 * 1024) return `${decimal.format(count / 1024)} KB`;
  if (count < 1024 ** 3) return `${decimal.format(count / 1024 / 1024)} MB`;
  return `${decimal.format(count / 1024 ** 3)} GB`;
}
