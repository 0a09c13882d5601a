// `Two-factor`: whether logging in asks for a code (GET /api/auth/me's totp_enabled). Off: `Turn on
// two-factor` (POST /api/auth/totp/setup) shows the otpauth URI as a QR code drawn in the page and the
// secret as text, then `Code` and `Confirm` (POST /api/auth/totp/enable) show the ten recovery codes,
// once. On: `Turn off two-factor` asks for `Password` and `Code` (POST /api/auth/totp/disable).
// The forms are built when asked for and removed when done: each label names one thing on the page.
import { post, request } from "../api";
import { button, byId, make } from "../dom";
import { attempt, copyButton, field, input, messageLine } from "../forms";
import type { User } from "../types";
import { qrCode } from "./qr-code";
import type { Region } from "./settings-view";

interface TotpSetup {
  secret: string;
  otpauth_uri: string;
}

export function twoFactorRegion(): Region {
  const section = byId("settings-two-factor");
  const body = make("div");
  section.append(body);
  let generation = 0;

  function load(user: User) {
    ++generation;
    draw(user.totp_enabled);
  }

  /** The state in words and the one button that changes it; `line` keeps what the last step said. */
  function draw(enabled: boolean, line = messageLine()): void {
    const state = make(
      "p",
      enabled
        ? "Two-factor is on: logging in asks for a code from your authenticator app (or a recovery code) after your password."
        : "Two-factor is off: logging in asks only for your password.",
    );
    state.setAttribute("role", "status");
    body.replaceChildren(state, enabled ? turnOff(line) : turnOn(line), line);
  }

  function turnOn(line: HTMLElement): HTMLElement {
    const part = make("div");
    const mine = generation;
    const open = button("Turn on two-factor", () => void attempt(open, line, async () => {
      const setup = await post<TotpSetup>("/api/auth/totp/setup");
      if (mine !== generation) return;
      open.hidden = true;
      part.append(setupForm(setup, () => {
        open.hidden = false;
        open.focus();
      }));
      part.querySelector("input")?.focus();
    }));
    part.append(open);
    return part;
  }

  function setupForm(setup: TotpSetup, cancelled: () => void): HTMLFormElement {
    const form = make("form", undefined, "totp-setup");
    form.setAttribute("aria-label", "Turn on two-factor");
    const steps = make("p", "Scan this QR code with your authenticator app (Google Authenticator, Microsoft Authenticator, 1Password, Aegis…), or type the secret into it; then enter the code it shows.");
    const secretLine = make("p", "Secret: ");
    secretLine.append(make("code", setup.secret, "totp-secret"));
    const code = field("Code", input("text", { autocomplete: "one-time-code", required: true, inputmode: "numeric" }), "The 6-digit code your app shows now.");
    const line = messageLine();
    const confirm = make("button", "Confirm");
    confirm.type = "submit";
    const cancel = button("Cancel", () => {
      form.remove();
      cancelled();
    }, "quiet");
    const actions = make("div", undefined, "actions");
    actions.append(confirm, cancel);
    form.append(steps, qrCode(setup.otpauth_uri, "QR code for your authenticator app"), secretLine, code.row, line, actions);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const mine = generation;
      void attempt(confirm, line, async () => {
        const { recovery_codes } = await post<{ recovery_codes: string[] }>("/api/auth/totp/enable", { code: code.control.value.trim() });
        if (mine !== generation) return;
        draw(true);
        body.firstElementChild!.after(recoveryCodes(recovery_codes));
      });
    });
    return form;
  }

  function recoveryCodes(codes: string[]): HTMLElement {
    const part = make("div", undefined, "recovery-codes");
    const heading = make("h4", "Recovery codes");
    heading.id = "recovery-codes-title";
    part.setAttribute("role", "group");
    part.setAttribute("aria-labelledby", heading.id);
    const note = make("p", "Shown once, here and now: keep them somewhere safe (a password manager, or on paper). Each one works once in place of a code, should you lose your authenticator.", "hint");
    const list = make("pre", codes.join("\n"), "shown-once");
    list.setAttribute("aria-label", "Recovery codes");
    const actions = make("div", undefined, "actions");
    actions.append(copyButton(() => codes.join("\n"), list), button("Done", () => part.remove(), "quiet"));
    part.append(heading, note, list, actions);
    return part;
  }

  function turnOff(regionLine: HTMLElement): HTMLElement {
    const part = make("div");
    const open = button("Turn off two-factor", () => {
      open.hidden = true;
      regionLine.textContent = "";
      const form = make("form");
      form.setAttribute("aria-label", "Turn off two-factor");
      const note = make("p", "Logging in will ask only for your password, and your recovery codes stop working.", "hint");
      const password = field("Password", input("password", { autocomplete: "current-password", required: true }));
      const code = field("Code", input("text", { autocomplete: "one-time-code", required: true, inputmode: "numeric" }), "From your authenticator app, or a recovery code.");
      const line = messageLine();
      const submit = make("button", "Turn off two-factor", "danger");
      submit.type = "submit";
      const cancel = button("Cancel", () => {
        form.remove();
        open.hidden = false;
        open.focus();
      }, "quiet");
      const actions = make("div", undefined, "actions");
      actions.append(submit, cancel);
      form.append(note, password.row, code.row, line, actions);
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        const mine = generation;
        void attempt(submit, line, async () => {
          await request("POST", "/api/auth/totp/disable", { json: { password: password.control.value, code: code.control.value.trim() }, checksPassword: true });
          if (mine === generation) draw(false);
        });
      });
      part.append(form);
      password.control.focus();
    }, "quiet");
    part.append(open);
    return part;
  }

  return {
    load,
    reset() {
      generation++;
      body.replaceChildren();
    },
  };
}
